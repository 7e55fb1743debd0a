"""The runners reach an out-of-process adapter through ``adapter_contract.OutOfProcess`` alone: no
attribute of an adapter looked up by name (``getattr``/``hasattr`` on an ``Any``), so what the runners rely
on is the Protocol's text, which mypy checks on both sides."""

from __future__ import annotations

import ast
import contextlib

from tests.conftest import REPO
from wireconf.adapter_contract import OutOfProcess, out_of_process

RUNNERS = REPO / "wireconf" / "pytest_plugin" / "runners"
BY_NAME = {"getattr", "hasattr", "setattr", "delattr"}
ALLOWED = {
    "hasattr(os, 'fork')",  # the platform
    "hasattr(item.session.config, 'workerinput')",  # pytest-xdist's mark of a worker's config
}


def seam_breaches(source: str) -> list[str]:
    """Each attribute lookup by name (but ``ALLOWED``), and each use of a session's ``impl.adapter``
    other than handing it to ``out_of_process``, as ``line: code``."""
    tree = ast.parse(source)
    handed = {
        id(node.args[0])
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "out_of_process"
    }
    found = []
    for node in ast.walk(tree):
        by_name = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BY_NAME
        if by_name and ast.unparse(node) not in ALLOWED:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.Attribute) and node.attr == "adapter" and id(node) not in handed:
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return sorted(found)


def test_the_runners_reach_an_adapter_only_through_out_of_process():
    modules = sorted(RUNNERS.glob("*.py"))
    assert {p.stem for p in modules} >= {"inline", "forked", "child", "plan", "warm"}
    found = {p.name: seam_breaches(p.read_text(encoding="utf-8")) for p in modules}
    assert {name: lines for name, lines in found.items() if lines} == {}


def test_the_check_finds_an_adapter_looked_up_by_name():
    """The check itself, on the shapes the runner had before the seam (issue 35: 10 ``getattr``)."""
    source = (
        "def run(session, item):\n"
        "    adapter = session.impl.adapter\n"
        "    ready = getattr(adapter, 'ready', None)\n"
        "    if hasattr(adapter, 'flush'):\n"
        "        adapter.flush()\n"
        "    return out_of_process(session.impl.adapter)\n"
    )
    assert seam_breaches(source) == [
        "2: session.impl.adapter",
        "3: getattr(adapter, 'ready', None)",
        "4: hasattr(adapter, 'flush')",
    ]


class _Runtime:
    """Every member of ``OutOfProcess``, as an ``exec:`` adapter has them."""

    network = "a namespace of its own"
    sends_ahead = True

    @property
    def late_faults(self) -> list[str]:
        return []

    def ready(self, timeout: float | None) -> None: ...

    def time_limit(self, seconds: float | None) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()

    def send_ahead(self, case: str, call: object) -> None: ...

    def has_sent_ahead(self, case: str) -> bool:
        return False

    def keep_ahead(self, cases: object) -> None: ...

    def claimed(self, case: str) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()

    def flush(self) -> None: ...

    def close(self) -> None: ...


def test_an_adapter_is_out_of_process_when_it_has_every_member_of_the_seam():
    runtime = _Runtime()
    assert out_of_process(runtime) is runtime and isinstance(runtime, OutOfProcess)


def test_an_in_process_adapter_or_one_lacking_a_member_is_run_in_process():
    from tests.fakes.base import ChatFake

    assert out_of_process(ChatFake()) is None

    class Partial:
        network = "x"
        sends_ahead = False

        def ready(self, timeout: float | None) -> None: ...

    assert out_of_process(Partial()) is None


def test_the_runners_modules_are_small():
    """One job each (issue 35): no module of the package over 300 lines."""
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in RUNNERS.glob("*.py")}
    assert {name: n for name, n in sizes.items() if n > 300} == {}
    assert not (RUNNERS.parent / "runner.py").exists()
