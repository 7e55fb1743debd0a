"""Which modules of a package import which, read from the source (``ast``), every import counted: at
module level, under ``if TYPE_CHECKING:`` and inside functions.

Two readers share it: ``wireconf strength`` (a mutant imports again only the modules its edits reach)
and the project's import-graph test (the packages' layers of docs/architecture.md, no cycles, the
reference importing nothing from the harness).
"""

from __future__ import annotations

import ast
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module at ``path``, ``root`` being the folder that holds its top package."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_modules(package: Path) -> dict[str, Path]:
    """Every module of the package folder ``package``, by dotted name."""
    return {module_name(path, package.parent): path for path in sorted(package.rglob("*.py"))}


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that module ``name`` (at ``path``) imports, itself left out: ``from a.b
    import c`` is ``a.b.c`` when that is a module, else ``a.b``."""

    def resolve(dotted: str) -> str | None:
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets |= {resolve(alias.name) for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets |= {resolve(f"{base}.{alias.name}") for alias in node.names}
    return {t for t in targets if t is not None and t != name}
