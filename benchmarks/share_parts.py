"""Where the harness's own share of a case goes: the CPU time per case of the pytest process and of its
runner process, each apart, with the runner's parts taken away one at a time.

    .venv/bin/python benchmarks/share_parts.py [--repeat 6] [--kinds wire,process,stream]

benchmarks/speed.py gives the share whole (the marginal cost less pytest's floor and the reference's
own calls); benchmarks/guarantees.py what each guarantee adds. This says which process pays the rest
and for what, on benchmarks/speed.py's selection (the wire, process and stream cases, MCP ones left out):

- **pytest's floor**: 2000 parametrized no-op tests without the plugin (as speed.py measures it).
- **the pytest process, its runner answering a canned pass**: the items, the hooks, the reports and
  the verdict's rendering, with no runner process (``ForkedRunner.run`` returns a passing result at
  once): what the plugin adds to pytest's own work per item.
- **the pytest process, with the forked runner**: the same plus the runner's pipe, the plan sent
  ahead, the fork and warm-up before the first case (once per session, spread over its cases) and the
  copy-on-write faults the fork brings (benchmarks/guarantees.py prices them).
- **the runner process**: everything a case does there (its input built, the adapter called, its
  outcome made plain data and judged, the result sent), the reference's own calls included.
- **one process** (``--case-runner thread``): the same cases with no fork and no pipe, for comparison.
- **the reference's own calls, bare**: the checkout's ``benchmarks/overhead.py`` pass (its ``process``
  cases twice: the plugin awaits ``process_async`` beside ``process``), as speed.py counts it.

With ``--runner-parts`` it says, instead, where the runner process's time goes, part by part: its
preparation of the inputs (``prepare_case``), the adapter call with its outcome made plain data
(``call_case``: the reference's own calls are most of it), the judging (``judge_case``), the result sent
(``send``), the cassettes folder's look (``look``) and the rest (its loop's marks, guard and output
capture, and its start: the process's whole CPU time less the parts; the measuring itself, two clock
reads and two ``getrusage`` calls a part, lands there too), each in CPU µs and in page faults per
case (the copy-on-write faults the fork brings show there), the minimum over ``--repeat`` sessions.
Beside it, the run's **stretches** (the cases of one kind in a row, in the order they run): for each,
the CPU µs per case of the pytest process and of the runner process, and the milliseconds the pytest
process waited for the runner's results (wall time, blocked in the pipe's poll; the first case's apart:
the fork, the runner's isolation and its first case). The runner works ahead of pytest, so where it
is the faster of the two the wait is nil; a stretch where its CPU per case is the larger one (the
stream cases: the SDK parsing each event as the reference reads it) is where the marginal cost per
case exceeds the pytest process's CPU, less whatever lead the runner built up before it.

Every figure is CPU time (the process and its reaped children: steady on a loaded machine where wall
time is not): a session less the same session with every case deselected, per case, the median of
``--repeat`` interleaved rounds.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import pytest

from wireconf.pytest_plugin import case_run
from wireconf.pytest_plugin.case_run import CaseResult
from wireconf.pytest_plugin.runners import child, forked, pipe, wait_reaped

if TYPE_CHECKING:
    from wireconf.pytest_plugin.case_host import RunnableCase

REPO = Path(__file__).resolve().parent.parent
SELECTION = [str(REPO / "cases"), "-q", "-p", "no:cacheprovider", "-k", "not mcp"]
NO_ITEM = "no-item-has-this-name"
TRIVIAL_ITEMS = 2000


def _cpu() -> tuple[float, float]:
    """CPU seconds of this process and of its reaped children (the runner process)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


class _Calls:
    def __init__(self) -> None:
        self.calls = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.calls += report.when == "call"


def _session(args: list[str]) -> tuple[float, float, int]:
    """One in-process session: this process's CPU seconds, its runner's, and the call phases run."""
    calls = _Calls()
    own, children = _cpu()
    with redirect_stdout(io.StringIO()):
        pytest.main(args, plugins=[calls])
    wait_reaped()
    own2, children2 = _cpu()
    return own2 - own, children2 - children, calls.calls


def _per_case(args: list[str]) -> tuple[float, float]:
    """Microseconds per case of this process and of the runner: the session less the same one with
    every case deselected."""
    own, runner, cases = _session(args)
    own_empty, runner_empty, _ = _session([*args, "-k", NO_ITEM])
    cases = max(cases, 1)
    return (own - own_empty) / cases * 1e6, (runner - runner_empty) / cases * 1e6


@contextmanager
def _canned() -> Iterator[None]:
    """The forked runner answers every case with a pass, starting no process."""
    run = forked.ForkedRunner.run
    forked.ForkedRunner.run = lambda self, item: CaseResult("judged")  # type: ignore[method-assign]
    try:
        yield
    finally:
        forked.ForkedRunner.run = run  # type: ignore[method-assign]


class _CpuClock:
    """The ``time`` module as ``overhead.py`` reads it, its ``perf_counter`` this process's CPU clock."""

    perf_counter = staticmethod(time.process_time)

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


def _bare_cpu(overhead: ModuleType, kinds: tuple[str, ...]) -> float:
    """CPU microseconds per case of the reference's own calls made bare (``overhead.bare``), its
    ``process`` cases twice (``process_async`` beside ``process``, as the plugin calls them)."""
    clock = overhead.time
    overhead.time = _CpuClock()
    try:
        seconds, cases = overhead.bare(1, kinds)
        if "process" in kinds:
            seconds += overhead.bare(1, ("process",))[0]
    finally:
        overhead.time = clock
    return float(seconds) / max(int(cases), 1) * 1e6


@contextmanager
def _as_is() -> Iterator[None]:
    yield


RUNNER_PARTS = (
    (child, "prepare_case", "preparing the inputs"),
    (case_run, "call_case", "the adapter call, its outcome made plain data"),
    (case_run, "judge_case", "judging"),
    (child, "send", "sending the result"),
    (child, "look", "the cassettes folder's look"),
)


def _faults() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


@contextmanager
def _runner_parts(out: Path) -> Iterator[None]:
    """Each forked runner process of the block adds a JSON line to ``out``: its cases and, by part, the
    CPU seconds and page faults it spent (``RUNNER_PARTS``; ``loop``: the whole ``serve`` less them).
    The runner's end is awaited (its pipe closed, its exit reaped) instead of killed, so that it
    writes the line."""
    saved = [(module, name, getattr(module, name)) for module, name, _ in RUNNER_PARTS]
    serve, close = forked.serve, forked.ForkedRunner.close
    spent: dict[str, list[float]] = {}

    def timed(name: str, function: Callable[..., object]) -> Callable[..., object]:
        def part(*args: object, **kwargs: object) -> object:
            cpu, faults = time.process_time(), _faults()
            try:
                return function(*args, **kwargs)
            finally:
                figures = spent.setdefault(name, [0.0, 0.0])
                figures[0] += time.process_time() - cpu
                figures[1] += _faults() - faults

        return part

    def serve_timed(*args: object) -> None:
        cpu, faults, cases = time.process_time(), _faults(), 0
        send = child.send
        done_cpu: list[float] = []  # the process's CPU seconds as each case's result goes

        def counted(conn: object, message: object) -> None:
            nonlocal cases
            if isinstance(message, tuple) and message[:1] == ("done",):
                cases += 1
                done_cpu.append(time.process_time() - cpu)
            send(conn, message)  # type: ignore[arg-type]

        child.send = counted  # type: ignore[assignment]
        try:
            serve(*args)  # type: ignore[arg-type]
        finally:
            whole = [time.process_time() - cpu, float(_faults() - faults)]
            parts = {name: spent.get(name, [0.0, 0.0]) for _, name, _ in RUNNER_PARTS}
            loop = [whole[i] - sum(p[i] for p in parts.values()) for i in (0, 1)]
            with out.open("a") as lines:
                line = {"cases": cases, **parts, "loop": loop, "done_cpu": done_cpu}
                lines.write(json.dumps(line) + "\n")

    def close_awaited(self: forked.ForkedRunner) -> None:
        pid, conn = self._pid, self._conn
        if pid is not None and conn is not None:
            self._detach()  # its pipe closed: the runner's loop ends
            os.waitpid(pid, 0)
        close(self)

    for module, name, _ in RUNNER_PARTS:
        setattr(module, name, timed(name, getattr(module, name)))
    forked.serve = serve_timed  # type: ignore[assignment]
    forked.ForkedRunner.close = close_awaited  # type: ignore[method-assign]
    try:
        yield
    finally:
        for module, name, function in saved:
            setattr(module, name, function)
        forked.serve, forked.ForkedRunner.close = serve, close  # type: ignore[method-assign]


@dataclass
class Asked:
    """A case the forked runner was asked for: its kind, the wall seconds the pytest process waited for
    the runner's messages meanwhile (blocked in the pipe's poll), and that process's CPU seconds when
    the result came."""

    kind: str
    waited: float
    cpu: float


@dataclass
class Stretch:
    """Consecutive cases of one kind in run order (``first``: the run's first case alone): CPU seconds
    of each process over them, wall seconds the pytest process waited for the runner."""

    kind: str
    cases: int = 0
    waited: float = 0.0
    own: float = 0.0
    runner: float = 0.0


@contextmanager
def _asked(cases: list[Asked]) -> Iterator[None]:
    """Each case the forked runner is asked for in the block adds its ``Asked`` to ``cases``."""
    run, ready = forked.ForkedRunner.run, pipe.Results.ready
    waited = [0.0]

    def ready_timed(self: pipe.Results, seconds: float | None) -> bool:
        started = time.perf_counter()
        try:
            return ready(self, seconds)
        finally:
            waited[0] += time.perf_counter() - started

    def run_noted(self: forked.ForkedRunner, item: RunnableCase) -> CaseResult:
        waited[0] = 0.0
        result = run(self, item)
        cases.append(Asked(item.loaded.kind, waited[0], time.process_time()))
        return result

    pipe.Results.ready = ready_timed  # type: ignore[method-assign]
    forked.ForkedRunner.run = run_noted  # type: ignore[method-assign]
    try:
        yield
    finally:
        pipe.Results.ready, forked.ForkedRunner.run = ready, run  # type: ignore[method-assign]


def stretches(asked: list[Asked], done_cpu: list[float]) -> list[Stretch]:
    """A session's stretches: ``asked`` its cases in run order, ``done_cpu`` the runner's CPU seconds as
    it sent each one's result (the same cases, in the same order)."""
    out: list[Stretch] = []
    for index, case in enumerate(asked):
        if index == 0:
            out.append(Stretch("first", 1, case.waited))
            continue
        if out[-1].kind != case.kind or len(out) == 1:
            out.append(Stretch(case.kind))
        last = out[-1]
        last.cases += 1
        last.waited += case.waited
        last.own += case.cpu - asked[index - 1].cpu
        if index < len(done_cpu):
            last.runner += done_cpu[index] - done_cpu[index - 1]
    return out


def _stretch_table(paired: list[list[Stretch]]) -> None:
    """The median over sessions of each stretch (by its place in the run)."""
    print(f"the run's stretches (the cases of one kind in a row), the median of {len(paired)} sessions")
    print("| stretch | cases | pytest process CPU µs a case | runner CPU µs a case | waited, ms |")
    print("|---|---|---|---|---|")
    for position, first in enumerate(paired[0]):
        same = [p[position] for p in paired if len(p) > position and p[position].kind == first.kind]
        waited = statistics.median(s.waited for s in same) * 1e3
        if first.kind == "first":
            print(f"| the first case (the fork, the runner's start) | 1 | | | {waited:.1f} |")
            continue
        own = statistics.median(s.own / s.cases for s in same) * 1e6
        runner = statistics.median(s.runner / s.cases for s in same) * 1e6
        print(f"| {first.kind} | {first.cases} | {own:.0f} | {runner:.0f} | {waited:.1f} |")


def runner_parts(selection: list[str], repeat: int) -> None:
    """The ``--runner-parts`` table (see the module's docstring)."""
    with tempfile.TemporaryDirectory(prefix="wireconf-parts-") as tmp:
        out = Path(tmp) / "parts.jsonl"
        _session(selection)  # the SDKs imported and the corpus parsed once
        runs: list[list[Asked]] = []
        with _runner_parts(out):
            for _ in range(repeat):
                runs.append([])
                with _asked(runs[-1]):
                    _session(selection)
        sessions = [json.loads(line) for line in out.read_text().splitlines()]
    sessions = [s for s in sessions if s["cases"]]
    rest = "the rest: its loop (marks, guard, output capture) and its start"
    labels = {name: label for _, name, label in RUNNER_PARTS} | {"loop": rest}
    print(f"the runner process, per case: CPU µs and page faults, the minimum of {len(sessions)} sessions")
    print("| part | CPU µs | page faults |")
    print("|---|---|---|")
    for name, label in labels.items():
        cpu = min(s[name][0] / s["cases"] for s in sessions) * 1e6
        faults = min(s[name][1] / s["cases"] for s in sessions)
        print(f"| {label} (`{name}`) | {cpu:.1f} | {faults:.1f} |")
    total = min(sum(s[n][0] for n in labels) / s["cases"] for s in sessions) * 1e6
    print(f"| the whole runner process | {total:.1f} | |")
    # one runner process per session (none was killed): its results are the session's cases in order
    paired = [stretches(asked, s["done_cpu"]) for asked, s in zip(runs, sessions, strict=False)]
    print()
    _stretch_table([p for p in paired if p])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=6, help="interleaved rounds")
    parser.add_argument("--kinds", default="wire,process,stream")
    parser.add_argument(
        "--runner-parts", action="store_true", help="the runner process's time part by part, instead"
    )
    args = parser.parse_args()
    kinds = tuple(args.kinds.split(","))
    selection = [*SELECTION, *(option for kind in kinds for option in ("--kind", kind))]
    if args.runner_parts:
        runner_parts(selection, args.repeat)
        return
    sys.path.insert(0, str(REPO / "benchmarks"))
    import overhead  # the checkout's own bare pass (benchmarks/ is no package)

    with tempfile.TemporaryDirectory(prefix="wireconf-share-") as tmp:
        trivial = Path(tmp) / "test_trivial.py"
        trivial.write_text(
            "import pytest\n\n\n"
            f"@pytest.mark.parametrize('n', range({TRIVIAL_ITEMS}))\n"
            "def test_nothing(n):\n    pass\n"
        )
        floor = [str(trivial), "-q", "-p", "no:cacheprovider", "-p", "no:wireconf"]
        floor += ["--rootdir", tmp, "-c", str(REPO / "pyproject.toml")]
        variants: dict[str, tuple[list[str], Callable[[], AbstractContextManager[None]]]] = {
            "floor": (floor, _as_is),
            "canned": (selection, _canned),
            "forked": (selection, _as_is),
            "thread": ([*selection, "--case-runner", "thread"], _as_is),
        }
        _session(selection)  # the SDKs imported and the corpus parsed once, as speed.py's probe does
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        order = list(variants)
        for r in range(args.repeat):
            for name in order if r % 2 == 0 else reversed(order):
                chosen, context = variants[name]
                with context():
                    figures[name].append(_per_case(chosen))
        bare = min(_bare_cpu(overhead, kinds) for _ in range(3))

    def median(name: str, part: int) -> float:
        return statistics.median(f[part] for f in figures[name])

    floor_us = median("floor", 0)
    rows = [
        ("pytest's floor (per trivial item)", floor_us, 0.0),
        ("the pytest process, its runner answering a canned pass", median("canned", 0), 0.0),
        ("the pytest process and the runner process (forked)", median("forked", 0), median("forked", 1)),
        ("one process (--case-runner thread)", median("thread", 0), median("thread", 1)),
    ]
    print(f"CPU µs per case ({', '.join(kinds)} cases), median of {args.repeat} interleaved rounds")
    print("| | pytest process | runner process | total | over the floor |")
    print("|---|---|---|---|---|")
    for label, own, runner in rows:
        print(f"| {label} | {own:.0f} | {runner:.0f} | {own + runner:.0f} | {own + runner - floor_us:+.0f} |")
    forked_total = median("forked", 0) + median("forked", 1)
    print(f"| the reference's own calls, bare | | {bare:.0f} | {bare:.0f} | |")
    share = (forked_total - floor_us - bare) / 1000
    print(
        f"the harness's own share (forked total less the floor and the bare calls): {share:.3f} ms per "
        f"case; in the runner process: {(median('forked', 1) - bare) / 1000:.3f} ms"
    )
    plugin, runner_part = median("canned", 0) - floor_us, median("forked", 0) - median("canned", 0)
    print(
        f"the plugin's own part of the pytest process: {plugin:+.0f} µs; the forked runner's part of it "
        f"(pipe, plan, fork, copy-on-write): {runner_part:+.0f} µs"
    )


if __name__ == "__main__":
    main()
