"""Where the package's annotations say ``Any``: the figure issue 26 asks for, before and after typing.

    python tools/any_count.py [PACKAGE_DIR] [--list]

Reads every annotation (parameters, returns, annotated assignments) with ``ast`` and sorts those that
name ``Any`` into:

- ``boundary alias``: a name from ``wireconf/core/untyped.py`` (``JSON``, ``YAML``, ``AdapterResult``, …):
  data that really is untyped, said where it is read;
- ``JSON object``: ``dict[str, Any]`` and the containers of it (``list[dict[str, Any]]``,
  ``Mapping[str, Any]``, optional or not): a JSON object by the package's convention;
- ``other container``: ``Any`` inside another type (``list[Any]``, ``Callable[..., Any]``, …);
- ``bare Any``: the annotation is ``Any`` itself (``**kwargs: Any`` and ``*args: Any`` apart).

The last two are the ``Any`` outside the boundaries; ``--list`` prints them. The plain
``grep -rw Any wireconf --include=*.py | wc -l`` counts lines that name ``Any`` anywhere (imports and
docstrings too); both are printed, for the harness and the reference apart.
"""

from __future__ import annotations

import argparse
import ast
import re
from collections import Counter
from pathlib import Path

ALIASES = {"JSON", "YAML", "AdapterResult", "AdapterObject", "SDKObject"}
JSON_OBJECT = re.compile(
    r"^(list\[|Iterable\[|Iterator\[|Sequence\[)?(dict|Mapping)\[str, Any\]\]?( \| None)?$"
)
CATEGORIES = ("boundary alias", "JSON object", "other container", "bare Any", "*args / **kwargs: Any")


def annotations(tree: ast.AST) -> list[tuple[int, str, str]]:
    """(line, what is annotated, the annotation's text) of every annotation in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
                if arg.annotation is not None:
                    found.append((arg.lineno, arg.arg, ast.unparse(arg.annotation)))
            for arg in (a.vararg, a.kwarg):
                if arg is not None and arg.annotation is not None:
                    found.append((arg.lineno, "*" + arg.arg, ast.unparse(arg.annotation)))
            if node.returns is not None:
                found.append((node.lineno, node.name + "() ->", ast.unparse(node.returns)))
        elif isinstance(node, ast.AnnAssign):
            found.append((node.lineno, ast.unparse(node.target), ast.unparse(node.annotation)))
    return found


def category(name: str, text: str) -> str | None:
    words = set(re.findall(r"\w+", text))
    if words & ALIASES:
        return "boundary alias"
    if "Any" not in words:
        return None
    if text == "Any":
        return "*args / **kwargs: Any" if name.startswith("*") else "bare Any"
    return "JSON object" if JSON_OBJECT.match(text) else "other container"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("package", nargs="?", default="wireconf", help="the package (default: wireconf)")
    parser.add_argument("--list", action="store_true", help="print each Any outside the boundaries")
    args = parser.parse_args()
    root = Path(args.package)
    counts: dict[str, Counter[str]] = {"harness": Counter(), "reference": Counter()}
    listed = []
    for path in sorted(root.rglob("*.py")):
        part = "reference" if "reference_impl" in path.parts else "harness"
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        counts[part]["grep -w Any (lines)"] += sum(bool(re.search(r"\bAny\b", line)) for line in lines)
        for line, name, text in annotations(ast.parse(source)):
            found = category(name, text)
            if found is not None:
                counts[part][found] += 1
                if found in ("bare Any", "other container"):
                    listed.append(f"{path}:{line}: {name}: {text}")
    for part, counter in counts.items():
        outside = counter["bare Any"] + counter["other container"]
        print(f"{part}: " + ", ".join(f"{c} {counter[c]}" for c in ("grep -w Any (lines)", *CATEGORIES)))
        print(f"{part}: Any outside the boundaries (bare Any + other container): {outside}")
    if args.list:
        print("\n".join(listed))


if __name__ == "__main__":
    main()
