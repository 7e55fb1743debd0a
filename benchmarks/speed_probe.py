"""One checkout's per-case figures, measured in its own interpreter: the probe ``speed.py`` runs for the
case cost, in this checkout or (``speed.py --before REF``) in a checkout of another commit, side by side.

    <checkout>/.venv/bin/python benchmarks/speed_probe.py --checkout <checkout> [--kinds wire,process,stream]
    .venv/bin/python benchmarks/speed_probe.py --repeat 3      # this checkout's rounds, printed at once

It starts a session once (the SDK imports, the corpus parsed), then reads commands on stdin, one a
line, and answers each with one JSON line: ``round`` measures one round (below), ``quit`` ends. A
driver that keeps two probes alive, one per checkout, can so alternate their rounds (ABBA): both
sides see the same load.

A round: ``pytest <checkout>/cases`` in-process on the wire, process and stream cases (MCP cases left
out: each starts a server process), the same session with every case deselected, the same two on
pytest's floor (a file of 2000 parametrized no-op tests, without the wireconf plugin, under the
checkout's own pytest configuration), and one pass of
the reference's own calls made bare on prepared inputs (the checkout's ``benchmarks/overhead.py``; its
``process`` cases twice where the reference has ``process_async``, which the plugin awaits beside
``process`` on every such case: the same processor, the reference's own time, on every side alike).
Each session's CPU time includes its case-runner process (reaped before it is read); the runner's
own is given apart too.

It imports nothing of the harness but ``wait_reaped`` and the checkout's own ``overhead.bare``, found
under either package name the project has had (``wireconf``; ``harness`` before the rename), so that
it runs unchanged in a checkout of an older commit.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import io
import json
import logging
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from pathlib import Path

import pytest

TRIVIAL_ITEMS = 2000
"""pytest's floor's items: enough that one disturbed session moves the floor per item little."""
NO_ITEM = "no-item-has-this-name"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


_MOVED = ("full_collections", "faults", "runner_faults")
"""The counters of ``_state`` a session is given as its own (the difference over it)."""


def _state() -> dict[str, int]:
    """What a session's figures rest on, beside the clock, each deterministic under load: the full
    collections the garbage collector ran (each walks every object not frozen: a heap left unfrozen by
    an earlier session makes pytest's floor cost more per item), the objects frozen out of its sight,
    the loggers the process holds (pytest attaches its capture handlers per phase of every item by
    walking all of them: more SDK modules imported, a higher floor), and the minor page faults of this
    process and of its reaped children (the runner process's copy-on-write copies of the pytest
    process's pages)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "full_collections": gc.get_stats()[2]["collections"],
        "frozen": gc.get_freeze_count(),
        "loggers": len(logging.Logger.manager.loggerDict),
        "faults": own.ru_minflt,
        "runner_faults": children.ru_minflt,
    }


def _wait_reaped() -> Callable[[], None]:
    for package in ("wireconf", "harness"):
        for module in ("runners", "runner"):  # the package since issue 35, the module before
            try:
                return importlib.import_module(f"{package}.pytest_plugin.{module}").wait_reaped  # type: ignore[no-any-return]
            except (ImportError, AttributeError):
                continue
    return lambda: None


class _CountCalls:
    """Counts the call phases of the items a session ran."""

    def __init__(self) -> None:
        self.calls = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.calls += 1


def _has_process_async(checkout: Path) -> bool:
    """Whether the checkout's reference adapter has ``process_async`` (read from its source: the
    reference lived at the top level before it moved under ``wireconf``)."""
    for package in (checkout / "wireconf", checkout):
        adapter = package / "reference_impl" / "adapter.py"
        if adapter.exists():
            return "async def process_async(" in adapter.read_text(encoding="utf-8")
    return False


class _CpuClock:
    """The ``time`` module as the checkout's ``overhead.py`` reads it, its ``perf_counter`` this
    process's CPU clock."""

    perf_counter = staticmethod(time.process_time)

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


class Probe:
    def __init__(self, checkout: Path, kinds: Sequence[str], work: Path) -> None:
        self.checkout = checkout
        self.wait_reaped = _wait_reaped()
        selection = [option for kind in kinds for option in ("--kind", kind)]
        self.plugin_args = [str(checkout / "cases"), "-q", "-p", "no:cacheprovider", *selection]
        self.plugin_args += ["-k", "not mcp"]
        trivial = work / "floor" / "test_trivial.py"
        trivial.parent.mkdir(parents=True, exist_ok=True)
        trivial.write_text(
            "import pytest\n\n\n"
            f"@pytest.mark.parametrize('n', range({TRIVIAL_ITEMS}))\n"
            "def test_nothing(n):\n    pass\n"
        )
        # the checkout's pytest configuration (its addopts: the plugins it loads or leaves out), so that
        # the floor is the same pytest as the corpus's sessions, wireconf aside
        self.floor_args = [str(trivial), "-q", "-p", "no:cacheprovider", "-p", "no:wireconf"]
        self.floor_args += ["--rootdir", str(work), "-c", str(checkout / "pyproject.toml")]
        sys.path.insert(0, str(checkout / "benchmarks"))
        overhead = importlib.import_module("overhead")  # the checkout's own (benchmarks/ is no package)
        self.kinds = tuple(kinds) if set(kinds) <= set(overhead.KINDS) else ()
        """The kinds whose reference calls are made bare too (none unless it can call all of them)."""
        self.bare = overhead.bare
        self.async_variant = _has_process_async(checkout)
        """Whether the checkout's reference has ``process_async``: every ``process`` case then also
        awaits it (a second call of the same processor, on its own SDK object), which the checkout's
        bare pass (one call per case) leaves out, so it is timed apart and added (``round``)."""
        self.session(self.plugin_args)  # the first session imports the SDKs and parses the corpus once

    def session(self, args: list[str]) -> tuple[float, float, int, float, dict[str, int]]:
        """One in-process session: wall and CPU seconds (its runner process included), call phases, the
        CPU seconds of its child processes alone (the runner process), and what the figures rest on
        (``_state``)."""
        counter = _CountCalls()
        state = _state()
        own, children, started = time.process_time(), _children_cpu(), time.perf_counter()
        with redirect_stdout(io.StringIO()):
            pytest.main(args, plugins=[counter])
        wall = time.perf_counter() - started
        self.wait_reaped()
        children = _children_cpu() - children
        after = _state()
        moved = {key: after[key] - state[key] for key in _MOVED}
        return wall, time.process_time() - own + children, counter.calls, children, state | moved

    def _bare(self, kinds: Sequence[str], cpu: bool = False) -> tuple[float, int]:
        """The checkout's bare pass over ``kinds`` (its process cases a second time where the reference
        has ``process_async``: ``async_variant``), timed by its own ``time.perf_counter`` or, with
        ``cpu``, by this process's CPU clock in its place: on a loaded machine the wall time of the
        calls grows with the other processes' share of the cores, their CPU time much less, and the
        sessions' CPU times are read beside them."""
        timer = sys.modules[self.bare.__module__].time
        if cpu:
            sys.modules[self.bare.__module__].time = _CpuClock()
        try:
            seconds, cases = self.bare(1, kinds)
            if self.async_variant and "process" in kinds:
                seconds += self.bare(1, ("process",))[0]  # the process cases' process_async calls
        finally:
            sys.modules[self.bare.__module__].time = timer
        return seconds, cases

    def round(self) -> dict[str, object]:
        run = self.session(self.plugin_args)
        empty = self.session([*self.plugin_args, "-k", NO_ITEM])
        floor = self.session(self.floor_args)
        floor_empty = self.session([*self.floor_args, "-k", NO_ITEM])
        bare_seconds, bare_cases = self._bare(self.kinds) if self.kinds else (0.0, 0)
        bare_cpu = self._bare(self.kinds, cpu=True)[0] if self.kinds else 0.0
        return {
            "pytest": pytest.__version__,
            "cases": run[2],
            "items": floor[2],
            "run": run[:2],
            "runner_cpu": run[3],
            "empty": empty[:2],
            "floor": floor[:2],
            "floor_empty": floor_empty[:2],
            "bare": [bare_seconds, bare_cases],
            "bare_cpu": [bare_cpu, bare_cases],
            "state": {"run": run[4], "empty": empty[4], "floor": floor[4], "floor_empty": floor_empty[4]},
        }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--checkout", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--kinds", default="wire,process,stream")
    parser.add_argument("--repeat", type=int, default=0, help="measure this many rounds now, print them")
    args = parser.parse_args()
    os.chdir(args.checkout)
    with tempfile.TemporaryDirectory(prefix="wireconf-probe-") as tmp:
        probe = Probe(args.checkout.resolve(), args.kinds.split(","), Path(tmp))
        for _ in range(args.repeat):
            figures = probe.round()
            run, empty, cases = figures["run"], figures["empty"], figures["cases"]
            assert isinstance(run, tuple) and isinstance(empty, tuple) and isinstance(cases, int)
            per_case = (run[0] - empty[0]) / max(cases, 1) * 1000
            print(f"round: {cases} cases, {per_case:.3f} ms per case (wall); {json.dumps(figures)}")
        if args.repeat:
            return
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            command = line.strip()
            if command == "quit":
                break
            if command == "round":
                print(json.dumps(probe.round()), flush=True)


if __name__ == "__main__":
    main()
