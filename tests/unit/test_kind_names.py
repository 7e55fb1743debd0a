"""A kind is named in its module under ``wireconf/kinds/`` and nowhere else in the harness, as an api is
named only in its provider's records (tests/unit/test_providers.py): a new kind, or a renamed one,
touches no module outside ``wireconf/kinds/``. Elsewhere a kind is reached through its object
(``wireconf.kinds.wire.KIND.name``), the registry (``KINDS``) or the kinds' own hooks.

Read from the source: a string literal of code (docstrings left out) that is a kind's name or starts
with ``<kind>:`` (a capability), outside a mapping's key or a lookup by key (``"stream": true`` in a
request body is the provider's field, not the kind).
"""

from __future__ import annotations

import ast

from tests.conftest import REPO
from wireconf.kinds.registry import KINDS

OUTSIDE_THE_RULE = ("wireconf/kinds/", "wireconf/reference_impl/", "wireconf/_corpus")
KNOWN = {
    "wireconf/corpus/prompty_vectors.py": "Prompty's two contracts are the wire and process kinds: the "
    "importer of its vectors writes cases of those two kinds (docs/architecture.md says so)",
}
OTHER_MEANINGS = {
    ("wireconf/pytest_plugin/runners/__init__.py", "process"): "a case runner: a forked process or a thread",
    ("wireconf/pytest_plugin/runners/forked.py", "process"): "--case-runner process",
    ("wireconf/pytest_plugin/options.py", "process"): "--runner process (or thread)",
    ("wireconf/providers/provider.py", "stream"): "the group of a route's pattern that says a URL streams",
    ("wireconf/emulator/minimal.py", "stream"): "the same group of a route's pattern, read",
    (
        "wireconf/repro/js_script.py",
        "stream",
    ): "a reproduction's mode (``wireconf.repro.js_script.Mode``): what its script checks",
    (
        "wireconf/repro/build.py",
        "stream",
    ): "a reproduction's mode (``wireconf.repro.js_script.Mode``): what its script checks",
    (
        "wireconf/repro/js_templates.py",
        "stream",
    ): "a reproduction's mode (``wireconf.repro.js_script.Mode``): what its script checks",
    (
        "wireconf/repro/prompty_ts_template.py",
        "stream",
    ): "a reproduction's mode (``wireconf.repro.js_script.Mode``): what its script checks",
}
"""Words that are a kind's name but mean something else where they stand."""


def _keys(tree: ast.AST) -> set[int]:
    """The string constants used as a key: of a mapping, a subscript, ``.get``/``.pop``/``setdefault``."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            found |= {id(k) for k in node.keys if k is not None}
        elif isinstance(node, ast.Subscript):
            found.add(id(node.slice))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") in {"get", "pop", "setdefault"}:
            found |= {id(a) for a in node.args[:1]}
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def kind_names(source: str, names: set[str]) -> list[tuple[int, str]]:
    """``(line, text)`` of each literal of ``source`` that names a kind of ``names``."""
    tree = ast.parse(source)
    spared = _keys(tree) | _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in spared:
            continue
        text = node.value
        kind, colon, rest = text.partition(":")
        if text in names or (kind in names and colon and not rest.startswith(" ")):
            found.append((node.lineno, text))
    return sorted(found)


def test_no_module_outside_the_kinds_names_a_kind():
    names = set(KINDS)
    found = [
        f"{relative}:{line}: {text!r}"
        for path in sorted((REPO / "wireconf").rglob("*.py"))
        if not (relative := path.relative_to(REPO).as_posix()).startswith(OUTSIDE_THE_RULE)
        and relative not in KNOWN
        for line, text in kind_names(path.read_text(encoding="utf-8"), names)
        if (relative, text) not in OTHER_MEANINGS
    ]
    assert found == []


def test_the_check_finds_a_kind_named_and_spares_a_provider_field():
    source = (
        '"""A module about wire cases."""\n'
        'CAPS = {f"blocks:{api}" for api in APIS}\n'  # f-string: its leading text "blocks:" is named
        'body = {"stream": True}\n'  # a request's field: spared
        'if case.kind == "wire":\n'  # named
        '    body.get("stream")\n'  # spared
        'help = "stream: true asks for events"\n'  # prose about the field: spared
    )
    assert kind_names(source, {"wire", "stream", "blocks"}) == [(2, "blocks:"), (4, "wire")]
