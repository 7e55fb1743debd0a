"""Every speed figure of the project in one run: the plugin's cost per case against pytest's own floor,
the whole corpus, a scaled corpus (one process and ``-n 2``), the Python exec helper's start-up,
``wireconf strength`` and the project's own test suite.

    .venv/bin/python benchmarks/speed.py [--repeat 3] [--copies 15] [--skip suite,strength]

- **case cost**: ``pytest cases`` in-process on the wire, process and stream cases (MCP cases left out:
  each starts a server process, see benchmarks/mcp_startup.py), minus the same session with every case
  deselected, per case. pytest's floor is measured the same way in the same process: a file of 1000
  parametrized no-op tests, without the wireconf plugin, minus the same session with all deselected.
  A session's end does not wait for the kernel to tear its runner process down (a thread reaps it, as
  in every session): that is out of the wall time, and in the CPU time (the script waits for it).
- **corpus**: the README's ``pytest cases`` as a command (start-up included).
- **scaled**: the corpus plus ``--copies`` copies of its wire, process and stream folders (case ids
  suffixed so that they stay unique), run as ``pytest <copy> -q`` in one process and with ``-n 2``;
  beside it pytest-xdist's own floor: as many trivial items, without the plugin, both ways.
- **exec start-up**: from starting ``python -m wireconf.exec_protocol.serve reference`` to its hello.
- **strength**: ``wireconf strength`` on the corpus, once (``--strength-args`` narrows it).
- **suite**: the README's ``.venv/bin/pytest``, once (``--suite-args`` narrows it); **suite-own**: the
  same without the runs of the real third-party systems (``-m 'not third_party'``), the figure the
  project's own tests are held to.

Every figure is the best of ``--repeat`` runs (strength and the suite: one run) with its CPU time
beside the wall time; the machine's load average is printed first, since figures taken on a busy
machine are higher than on a quiet one.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from overhead import KINDS as BARE_KINDS  # a sibling script (benchmarks/ is not a package)
from overhead import bare

from wireconf.kinds.registry import open_corpus
from wireconf.pytest_plugin.runner import wait_reaped

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"
PYTEST = [sys.executable, "-m", "pytest"]
SCALED_KINDS = ("wire", "process", "stream")
FIGURES = ("case-cost", "corpus", "scaled", "exec-start", "strength", "suite-own", "suite")
TRIVIAL_ITEMS = 1000


@dataclass
class Timing:
    wall: float
    cpu: float

    def __str__(self) -> str:
        return f"{self.wall:7.2f} s wall ({self.cpu:6.2f} s CPU)"


def best(timings: Sequence[Timing]) -> Timing:
    return min(timings, key=lambda t: t.wall)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def command(argv: list[str], cwd: Path, check: bool = True) -> tuple[Timing, str, int]:
    """Run ``argv`` to its end: wall and CPU time (its child processes included), output, exit code."""
    cpu, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    timing = Timing(time.perf_counter() - started, _children_cpu() - cpu)
    if check and done.returncode not in (0, 1):  # 1: some test failed, which is still a timed run
        raise SystemExit(f"{shlex.join(argv)} exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr}")
    return timing, done.stdout + done.stderr, done.returncode


def in_process(args: list[str], plugins: Sequence[object] = ()) -> Timing:
    """A pytest session in this process; its CPU time includes the case-runner process it forked (reaped
    when the session ends)."""
    cpu, started = time.process_time() + _children_cpu(), time.perf_counter()
    with redirect_stdout(io.StringIO()):
        pytest.main(args, plugins=list(plugins))
    wall = time.perf_counter() - started
    wait_reaped()  # the session's end does not wait for its runner process to be reaped; its CPU counts
    return Timing(wall, time.process_time() + _children_cpu() - cpu)


class _CountCalls:
    """Counts the call phases of the items a session ran."""

    def __init__(self) -> None:
        self.calls = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.calls += 1


def _marginal(args: list[str], repeat: int) -> tuple[Timing, int]:
    """Per-item cost of a session (wall and CPU): the run minus the same run with every item
    deselected, each the best of ``repeat``."""
    runs, empty, items = [], [], 0
    for _ in range(repeat):
        counter = _CountCalls()
        runs.append(in_process(args, [counter]))
        items = counter.calls
        empty.append(in_process([*args, "-k", "no-item-has-this-name"]))
    count = max(items, 1)
    wall = (best(runs).wall - best(empty).wall) / count
    cpu = (min(t.cpu for t in runs) - min(t.cpu for t in empty)) / count
    return Timing(wall, cpu), items


def case_cost(repeat: int, work: Path, case_kinds: Sequence[str] = SCALED_KINDS) -> None:
    kinds = [option for kind in case_kinds for option in ("--kind", kind)]
    plugin_args = [str(CASES), "-q", "-p", "no:cacheprovider", *kinds, "-k", "not mcp"]
    trivial = work / "floor" / "test_trivial.py"
    trivial.parent.mkdir(parents=True, exist_ok=True)
    trivial.write_text(
        "import pytest\n\n\n"
        f"@pytest.mark.parametrize('n', range({TRIVIAL_ITEMS}))\n"
        "def test_nothing(n):\n    pass\n"
    )
    floor_args = [str(trivial), "-q", "-p", "no:cacheprovider", "-p", "no:wireconf", "--rootdir", str(work)]
    in_process(plugin_args)  # the first session imports the SDKs and parses the corpus once
    per_case, cases = _marginal(plugin_args, repeat)
    per_item, items = _marginal(floor_args, repeat)
    print(f"case cost: {cases} {'/'.join(case_kinds)} cases, {items} trivial items")
    for label, cost in (
        ("marginal cost per case through the plugin", per_case),
        ("pytest's floor", per_item),
    ):
        print(f"  {label:42} {cost.wall * 1000:6.3f} ms wall, {cost.cpu * 1000:6.3f} ms CPU")
    wall, cpu = per_case.wall / per_item.wall, per_case.cpu / per_item.cpu
    print(f"  ratio: {wall:.1f}x the floor (wall), {cpu:.1f}x (CPU)")
    if set(case_kinds) <= set(BARE_KINDS):
        bare_total, bare_cases = bare(repeat, case_kinds)  # the same cases as the plugin's run
        adapter = bare_total / bare_cases
        harness = per_case.wall - per_item.wall - adapter
        print(
            f"  of the marginal cost: pytest's floor {per_item.wall * 1000:.3f} ms, the reference's own "
            f"calls {adapter * 1000:.3f} ms (made bare on prepared inputs, benchmarks/overhead.py; "
            f"process_async not included), the harness {harness * 1000:.3f} ms (preparing inputs, the "
            "runner process, judging, reporting)"
        )


_CORPUS_RUN: list[tuple[Timing, int]] = []
"""The corpus run's timing and case count, for the scaled run's cost per added case."""


def corpus(repeat: int) -> None:
    timing = best(
        [command([*PYTEST, "cases", "-q", "-p", "no:cacheprovider"], REPO)[0] for _ in range(repeat)]
    )
    print(f"corpus: `pytest cases -q`: {timing}")

    _CORPUS_RUN.append((timing, sum(1 for _ in open_corpus(CASES).cases())))


def make_scaled_corpus(dest: Path, copies: int) -> int:
    """The corpus under ``dest/cases`` plus ``copies`` copies of its wire, process and stream folders,
    each case id suffixed with its copy number; ``dest/cassettes`` is the project's. Returns the number
    of cases."""
    from wireconf.yaml_source import load_yaml_file

    shutil.copytree(CASES, dest / "cases")
    (dest / "cassettes").symlink_to(REPO / "cassettes", target_is_directory=True)
    for kind in SCALED_KINDS:
        for path in sorted((CASES / kind).rglob("*.yaml")):
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            id_lines = {
                entry.key_lines["id"] - 1: entry["id"]
                for entry in load_yaml_file(path)["cases"]
                if isinstance(entry, dict) and "id" in entry
            }
            for copy in range(1, copies + 1):
                out = list(lines)
                for index, case_id in id_lines.items():
                    out[index] = re.sub(
                        rf"\bid:(\s*)(['\"]?){re.escape(case_id)}\2",
                        lambda m, c=copy, i=case_id: f"id:{m[1]}{m[2]}{i}.copy{c}{m[2]}",
                        out[index],
                        count=1,
                    )
                target = dest / "cases" / f"{kind}-copy{copy}" / path.relative_to(CASES / kind)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text("".join(out), encoding="utf-8")
    loaded = open_corpus(dest / "cases")
    problems = list(loaded.problems())
    if problems:
        raise SystemExit(f"the scaled corpus has problems: {problems[:3]}")
    return sum(1 for _ in loaded.cases())


def _peak_rss_mb(output: str) -> str:
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", output)
    return f", peak {int(match[1]) // 1024} MB" if match else ""


def scaled(repeat: int, copies: int, work: Path) -> None:
    dest = work / "scaled"
    count = make_scaled_corpus(dest, copies)
    time_v = ["/usr/bin/time", "-v"] if Path("/usr/bin/time").exists() else []
    results = {}
    for label, extra in (("one process", []), ("-n 2", ["-n", "2"])):
        runs = []
        for _ in range(repeat):
            timing, output, _ = command(
                [*time_v, *PYTEST, "cases", "-q", "-p", "no:cacheprovider", *extra], dest
            )
            said = re.search(r"in ([\d.]+)s", output)
            runs.append((timing, float(said[1]) if said else float("nan"), _peak_rss_mb(output)))
        results[label] = min(runs, key=lambda r: r[0].wall)
    print(f"scaled corpus: {count} cases (the corpus plus {copies} copies of {', '.join(SCALED_KINDS)})")
    for label, (timing, said, rss) in results.items():
        print(f"  {label:12} {timing}; pytest says {said:.1f} s{rss}")
    one, two = results["one process"][0].wall, results["-n 2"][0].wall
    print(f"  -n 2 speed-up: {one / two:.2f}x")
    alone = results["one process"][0]
    print(
        f"  one process keeps {alone.cpu / alone.wall:.2f} cores busy (its case-runner process works ahead): "
        "-n 2 adds its workers' processes and xdist's per-item cost on the same cores"
    )
    xdist_floor(repeat, count, work)
    if _CORPUS_RUN:  # the slope: what each added case costs a whole run, collection included
        base, base_count = _CORPUS_RUN[-1]
        added = results["one process"][0].cpu - base.cpu
        per_case = added / (count - base_count) * 1000
        print(f"  CPU per added case (one process, against the corpus run): {per_case:.3f} ms")


def xdist_floor(repeat: int, count: int, work: Path) -> None:
    """pytest-xdist's own cost, for scale: as many trivial items as the scaled corpus has cases, without
    the wireconf plugin, in one process and with ``-n 2``. What xdist adds per item (its controller
    reading three reports, the workers writing them) is CPU the two cores spend on neither side of a
    case: ``-n 2`` gains only where a case costs well above it."""
    folder = work / "xdist-floor"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "test_trivial.py").write_text(
        f"import pytest\n\n\n@pytest.mark.parametrize('n', range({count}))\ndef test_nothing(n):\n    pass\n"
    )
    args = [*PYTEST, "test_trivial.py", "-q", "-p", "no:cacheprovider", "-p", "no:wireconf"]
    args += ["--rootdir", str(folder)]
    timings = {
        label: best([command([*args, *extra], folder)[0] for _ in range(repeat)])
        for label, extra in (("one process", []), ("-n 2", ["-n", "2"]))
    }
    print(f"  xdist's own floor: {count} trivial items without wireconf")
    for label, timing in timings.items():
        print(f"    {label:10} {timing}")
    one, two = timings["one process"], timings["-n 2"]
    added = (two.cpu - one.cpu) / count * 1000
    print(f"    -n 2 speed-up: {one.wall / two.wall:.2f}x; CPU xdist adds per item: {added:.3f} ms")


def exec_start(repeat: int) -> None:
    from wireconf.exec_protocol.client import ExecAdapter

    serve = f"{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve reference"
    timings = []
    for _ in range(repeat):
        cpu, started = _children_cpu(), time.perf_counter()
        adapter = ExecAdapter(serve)
        wall = time.perf_counter() - started
        adapter.close()
        timings.append(Timing(wall, _children_cpu() - cpu))
    timing = best(timings)
    print(
        f"exec helper start-up (to its hello): {timing.wall * 1000:.0f} ms wall "
        f"(the helper's CPU to its end, warm-up after the hello included: {timing.cpu * 1000:.0f} ms)"
    )


def strength(extra: list[str]) -> None:
    wireconf = Path(sys.executable).with_name("wireconf")
    timing, output, _ = command([str(wireconf), "strength", *extra], REPO)
    summary = [line for line in output.splitlines() if line.startswith("mutants killed")]
    print(f"wireconf strength {shlex.join(extra)}".rstrip() + f": {timing}; {' '.join(summary)}")


def suite(extra: list[str]) -> None:
    pytest_bin = Path(sys.executable).with_name("pytest")
    timing, output, code = command([str(pytest_bin), "-q", "-p", "no:cacheprovider", *extra], REPO)
    last = output.strip().splitlines()[-1] if output.strip() else ""
    print(f"project tests `pytest {shlex.join(extra)}`: {timing}; {last}")
    if code:
        print("  (the suite did not pass; the figure is still its time)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--copies", type=int, default=15, help="copies of wire/process/stream (default 15)")
    parser.add_argument(
        "--skip", default="", help=f"comma-separated figures to leave out: {', '.join(FIGURES)}"
    )
    parser.add_argument("--strength-args", default="", help="arguments for `wireconf strength`")
    parser.add_argument("--suite-args", default="", help="arguments for the project's `pytest`")
    parser.add_argument("--keep", type=Path, default=None, help="build the scaled corpus here and keep it")
    parser.add_argument(
        "--case-cost-kinds",
        default=",".join(SCALED_KINDS),
        help="the kinds whose cases the case cost is measured on (default: %(default)s)",
    )
    args = parser.parse_args()
    skip = {s for s in args.skip.split(",") if s}
    unknown = skip - set(FIGURES)
    if unknown:
        parser.error(f"unknown figure(s) {', '.join(sorted(unknown))}; known: {', '.join(FIGURES)}")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPU(s)")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        print("note: PYTHONDONTWRITEBYTECODE is set: every process compiles the project's modules anew")
    runs: dict[str, Callable[[Path], None]] = {
        "case-cost": lambda work: case_cost(args.repeat, work, args.case_cost_kinds.split(",")),
        "corpus": lambda work: corpus(args.repeat),
        "scaled": lambda work: scaled(args.repeat, args.copies, work),
        "exec-start": lambda work: exec_start(args.repeat),
        "strength": lambda work: strength(shlex.split(args.strength_args)),
        "suite-own": lambda work: suite([*shlex.split(args.suite_args), "-m", "not third_party"]),
        "suite": lambda work: suite(shlex.split(args.suite_args)),
    }
    with tempfile.TemporaryDirectory(prefix="wireconf-speed-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for name in FIGURES:
            if name not in skip:
                runs[name](work)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
