"""Dependencies flow one way: no import cycle inside the harness (``wireconf`` less its reference) nor
inside the reference (``wireconf.reference_impl``), and the reference imports nothing from the harness.
At package level (``wireconf.corpus``, ``wireconf.core.errors``, …) the harness is layered as
docs/architecture.md draws it (``LAYERS``): no package imports one of a layer above its own, and the
packages' graph has no cycle, inside a layer either.

The graph is read from the source (``ast``), counting every import: at module level, under
``if TYPE_CHECKING:`` and inside functions. A cycle that only a deferred import keeps from failing at
import time is still a cycle: it is what makes a module impossible to read, type or move on its own.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO
from wireconf.core.import_graph import imports_of, module_name

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


LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("entry points", frozenset({"wireconf", "cli", "commands"})),
    ("the pytest layer", frozenset({"pytest_plugin", "maintenance"})),
    ("runtimes", frozenset({"adapter_contract", "runtimes", "exec_protocol", "adapters", "repro", "envs"})),
    ("cases", frozenset({"kinds", "corpus", "judging", "reports"})),
    ("recordings", frozenset({"sdk", "cassettes", "providers", "emulator"})),
    ("leaves", frozenset({"core"})),
    ("the reference", frozenset({"reference_impl"})),
)
"""Top to bottom, as docs/architecture.md's Dependencies lists them: a package (a folder or a top-level
module of ``wireconf``) imports only packages of its own layer or below."""


def package_of(module: str) -> str:
    """``wireconf.corpus.loader`` → ``corpus``; ``wireconf.core.errors`` → ``errors``; ``wireconf`` itself."""
    return module.split(".")[1] if "." in module else module


def package_graph(root: Path = REPO) -> dict[tuple[str, str], list[str]]:
    """Package → package, with the module imports behind each edge (``a.b -> c.d``)."""
    known = {module_name(path, root): path for path in sorted((root / HARNESS).rglob("*.py"))}
    known = {n: p for n, p in known.items() if "_corpus" not in n}
    edges: dict[tuple[str, str], list[str]] = {}
    for name, path in known.items():
        for target in imports_of(name, path, known):
            source, dest = package_of(name), package_of(target)
            if source != dest and dest != HARNESS:
                edges.setdefault((source, dest), []).append(f"{name} -> {target}")
    return edges


def layer_of(package: str) -> int:
    found = [index for index, (_, members) in enumerate(LAYERS) if package in members]
    assert found, f"wireconf.{package} is in no layer: place it in LAYERS and in docs/architecture.md"
    return found[0]


def upward_imports(edges: dict[tuple[str, str], list[str]]) -> list[str]:
    """Every module import from a package to one of a layer above it."""
    return sorted(
        f"{line} ({LAYERS[layer_of(source)][0]} imports {LAYERS[layer_of(dest)][0]})"
        for (source, dest), lines in edges.items()
        if layer_of(dest) < layer_of(source)
        for line in lines
    )


def package_cycles(edges: dict[tuple[str, str], list[str]]) -> list[list[str]]:
    """The packages that reach each other (each strongly connected set of more than one)."""
    graph: dict[str, set[str]] = {}
    for source, dest in edges:
        graph.setdefault(source, set()).add(dest)
        graph.setdefault(dest, set())

    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for nxt in graph[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen

    reached = {node: reach(node) for node in graph}
    groups = {frozenset({n, *(m for m in reached[n] if n in reached[m])}) for n in graph}
    return sorted(sorted(g) for g in groups if len(g) > 1)


def test_every_package_imports_only_its_layer_and_below():
    assert upward_imports(package_graph()) == []


def test_the_packages_import_each_other_without_a_cycle():
    edges = package_graph()
    cycles_found = package_cycles(edges)
    assert cycles_found == [], [
        line
        for group in cycles_found
        for (s, d), lines in edges.items()
        if {s, d} <= set(group)
        for line in lines
    ]


def test_the_layering_check_finds_an_upward_import_and_a_cycle(tmp_path):
    """The checks themselves, on a toy tree: ``errors`` (a leaf) importing ``corpus`` is upward, and
    ``corpus`` and ``judging`` importing each other (once inside a function) are a cycle."""
    package = tmp_path / HARNESS
    for folder in ("core", "corpus", "judging"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "core" / "errors.py").write_text("from wireconf.corpus import model\n")
    (package / "corpus" / "model.py").write_text("def f():\n    from wireconf.judging.verdict import v\n")
    (package / "judging" / "verdict.py").write_text("from wireconf.corpus.model import f\nv = f\n")
    edges = package_graph(tmp_path)
    assert upward_imports(edges) == ["wireconf.core.errors -> wireconf.corpus.model (leaves imports cases)"]
    assert package_cycles(edges) == [["corpus", "judging"]]


def test_every_layer_is_named_in_the_architecture_page():
    """The page lists the layers in the same order, each with its packages."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text[text.index("## Dependencies") :]
    positions = [section.find(f"**{name}**") for name, _ in LAYERS]
    assert -1 not in positions and positions == sorted(positions), positions
    for name, members in LAYERS:
        start = section.index(f"**{name}**")
        ends = [i for i in (section.find("\n- ", start), section.find("\n\n", start)) if i != -1]
        item = section[start : min(ends, default=len(section))]
        assert all(f"`{m}`" in item for m in members if m != HARNESS), (name, item)


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


RUNNERS_SEE = frozenset({"case_host", "case_run", "timeout", "heap_freeze"})
"""What the runners (``wireconf.pytest_plugin.runners``) import of the pytest layer: the session and the
items through ``case_host``'s protocols, one case's work (``case_run``), the time limits and the heap's
state; never the session, the items or the hooks (items → session → runners → case_host, one way)."""


def test_the_runners_see_the_session_and_the_items_only_through_case_host():
    known = modules(HARNESS)
    package = f"{HARNESS}.pytest_plugin"
    reached = {
        f"{name} -> {target}"
        for name, path in known.items()
        if name.startswith(f"{package}.runners")
        for target in imports_of(name, path, known)
        if target.startswith(f"{package}.")
        and not target.startswith(f"{package}.runners")
        and target.removeprefix(f"{package}.") not in RUNNERS_SEE
    }
    assert any(name.startswith(f"{package}.runners.") for name in known)
    assert reached == set()
