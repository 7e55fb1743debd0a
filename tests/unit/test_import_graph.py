"""Dependencies flow one way: no import cycle inside the harness (``wireconf`` less its reference) nor
inside the reference (``wireconf.reference_impl``), and the reference imports nothing from the harness.

The graph is read from the source (``ast``), counting every import: at module level, under
``if TYPE_CHECKING:`` and inside functions. A cycle that only a deferred import keeps from failing at
import time is still a cycle: it is what makes a module impossible to read, type or move on its own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO
from wireconf.import_graph import imports_of, module_name

HARNESS = "wireconf"
REFERENCE = "wireconf.reference_impl"


def modules(package: str) -> dict[str, Path]:
    """The modules of ``package`` (dotted), by name; the harness's without the reference's."""
    folder = REPO.joinpath(*package.split("."))
    found = {module_name(path, REPO): path for path in sorted(folder.rglob("*.py"))}
    if package == HARNESS:
        found = {n: p for n, p in found.items() if not n.startswith(REFERENCE) and "_corpus" not in n}
    return found


def cycles(package: str) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    known = modules(package)
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("package", [HARNESS, REFERENCE])
def test_no_import_cycles(package):
    assert cycles(package) == []


def test_the_check_finds_a_cycle(tmp_path, monkeypatch):
    """The check itself: two modules that import each other (one only for typing) are a cycle."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import B\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg import a\n"
    )
    monkeypatch.setattr(f"{__name__}.REPO", tmp_path)
    assert cycles("pkg") == [["pkg.a", "pkg.b"]]


def test_the_reference_imports_nothing_from_the_harness():
    harness = modules(HARNESS)
    known = {**modules(REFERENCE), **harness}
    for name, path in modules(REFERENCE).items():
        assert not [t for t in imports_of(name, path, known) if t in harness and t != HARNESS], name


def test_the_architecture_page_names_every_module_and_only_modules_that_exist():
    """docs/architecture.md is drawn from the tree as it is: a module added, moved or removed shows."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    modules = [
        path
        for suffix in ("*.py", "*.mjs")
        for path in (REPO / "wireconf").rglob(suffix)
        if path.name != "__init__.py" and "_corpus" not in path.parts and "reference_impl" not in path.parts
    ]
    assert len(modules) > 100
    unnamed = sorted(
        path.relative_to(REPO).as_posix()
        for path in modules
        if not re.search(rf"(?<![\w.]){re.escape(path.stem)}(?![\w])", text)
    )
    assert unnamed == []
    files = {path.relative_to(REPO).as_posix() for path in REPO.glob("*/**/*.py")}
    named = set(re.findall(r"`((?:[a-z_]+/)*[a-z_]+\.py)`", text))
    assert named and {n for n in named if not any(f.endswith("/" + n) or f == n for f in files)} == set()
