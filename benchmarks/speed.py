"""Every speed figure of the project in one run: the plugin's cost per case against pytest's own floor,
the whole corpus, a scaled corpus (one process and ``-n 2``), the Python exec helper's start-up,
``wireconf strength`` and the project's own test suite.

    .venv/bin/python benchmarks/speed.py [--repeat 3] [--copies 15] [--skip suite,strength]

- **case cost**: ``pytest cases`` in-process on the wire, process and stream cases (MCP cases left out:
  each starts a server process, see benchmarks/mcp_startup.py), minus the same session with every case
  deselected, per case. pytest's floor is measured the same way in the same process: a file of 2000
  parametrized no-op tests, without the wireconf plugin, minus the same session with all deselected.
  Each is the median over the rounds of a round's difference (two sessions run back to back, under the
  same load). Beside the times, counters that load does not move: the full collections during the
  floor, the objects frozen, the loggers the process holds (pytest walks them for every phase of every
  item), the minor page faults per case of the runner process (its copies of the pytest process's pages).
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

    .venv/bin/python benchmarks/speed.py --before ff372f1 --before main [--repeat 5] [--before-cache DIR]

**Side by side** (``--before REF``, repeatable): a slow creep spread over several changes shows only
against an older commit measured in the same run, on the same machine at the same moment. Each REF is
built in a checkout of its own (``git archive`` into a temporary folder, or ``--before-cache``, where a
built one is reused), with a venv of its own (``pip install -e '.[dev]'``: that commit's dependencies,
package name and entry points; a shared venv with ``PYTHONPATH`` would not be faithful: ff372f1's
package is ``harness``, its pytest plugin entry point another). The case cost is measured by
``speed_probe.py``, one process per checkout kept running and asked for rounds in turn (A B B A ...),
and ``pytest cases -q`` is run the same way; the table gives each figure for every side and this
checkout's ratio to each. Wall times follow the machine's load; the CPU times per process beside them
move less, and ratios within one run are what to compare across runs. The harness's own share is the
marginal cost less pytest's floor and the reference's own calls (``process_async`` included, made on
every ``process`` case), by wall time and by CPU time (the bare calls timed on the CPU clock too): on
a loaded machine read the CPU row. Where every side runs the same pytest its floor is the same work,
and the share is given against their common floor (the median of the sides') too.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed_probe import Probe  # a sibling script (benchmarks/ is not a package)

from wireconf.kinds.registry import open_corpus

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"
PYTEST = [sys.executable, "-m", "pytest"]
SCALED_KINDS = ("wire", "process", "stream")
FIGURES = ("case-cost", "corpus", "scaled", "exec-start", "strength", "suite-own", "suite")


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


def per_case(rounds: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The case cost of ``speed_probe`` rounds, in seconds: per round, the run less the same run with
    every item deselected (measured just before or after it, under the same load), per case or item;
    the median of the rounds. A difference of each session's best over the rounds is thrown off by one
    lucky empty session (too low a floor or cost for every round) and by load that weighs on one side's
    sessions; the per-round difference pairs sessions that ran under the same load, and the median
    leaves out one disturbed round of three."""

    def cost(run: str, empty: str, count: str) -> tuple[float, float]:
        n = max(rounds[0][count], 1)
        wall = statistics.median((r[run][0] - r[empty][0]) / n for r in rounds)
        cpu = statistics.median((r[run][1] - r[empty][1]) / n for r in rounds)
        return wall, cpu

    case_wall, case_cpu = cost("run", "empty", "cases")
    floor_wall, floor_cpu = cost("floor", "floor_empty", "items")
    bare = min(r["bare"][0] for r in rounds) / max(rounds[0]["bare"][1], 1)
    bare_cpu = min(r.get("bare_cpu", r["bare"])[0] for r in rounds) / max(rounds[0]["bare"][1], 1)
    runner_cpu = min(r.get("runner_cpu", 0.0) for r in rounds) / max(rounds[0]["cases"], 1)
    figures = {
        "cases": rounds[0]["cases"],
        "items": rounds[0]["items"],
        "case_wall": case_wall,
        "case_cpu": case_cpu,
        "floor_wall": floor_wall,
        "floor_cpu": floor_cpu,
        "bare": bare,
        "own": case_wall - floor_wall - bare,
        "bare_cpu": bare_cpu,
        "own_cpu": case_cpu - floor_cpu - bare_cpu,
        "runner_cpu": runner_cpu,
        "pytest_cpu": case_cpu - runner_cpu,
    }
    return figures | _state_figures(rounds)


def _state_figures(rounds: Sequence[dict[str, Any]]) -> dict[str, float]:
    """What the figures rest on, from the probe's counters (``speed_probe._state``; none from an older
    probe): deterministic, so a floor or a cost that differs between sides says here why, or that it is
    the machine's load."""
    states = [r["state"] for r in rounds if "state" in r]
    if not states:
        return {}
    cases, items = max(rounds[0]["cases"], 1), max(rounds[0]["items"], 1)

    def per(session: str, empty: str, key: str, n: int) -> float:
        return statistics.median((s[session][key] - s[empty][key]) / n for s in states)

    return {
        "floor_collections": per("floor", "floor_empty", "full_collections", items) * 1000,
        "frozen": float(states[-1]["floor"]["frozen"]),
        "loggers": float(states[-1]["floor"]["loggers"]),
        # the runner process's alone: the empty session forks none, and the pytest process's own faults
        # follow what its earlier sessions left mapped more than its cases
        "runner_faults": per("run", "empty", "runner_faults", cases),
    }


def case_cost(repeat: int, work: Path, case_kinds: Sequence[str] = SCALED_KINDS) -> None:
    probe = Probe(REPO, case_kinds, work)
    figures = per_case([probe.round() for _ in range(repeat)])
    print(f"case cost: {figures['cases']} {'/'.join(case_kinds)} cases, {figures['items']} trivial items")
    for label, wall, cpu in (
        ("marginal cost per case through the plugin", figures["case_wall"], figures["case_cpu"]),
        ("pytest's floor", figures["floor_wall"], figures["floor_cpu"]),
    ):
        print(f"  {label:42} {wall * 1000:6.3f} ms wall, {cpu * 1000:6.3f} ms CPU")
    wall = figures["case_wall"] / figures["floor_wall"]
    cpu = figures["case_cpu"] / figures["floor_cpu"]
    print(f"  ratio: {wall:.1f}x the floor (wall), {cpu:.1f}x (CPU)")
    print(
        f"  CPU per case: {figures['pytest_cpu'] * 1000:.3f} ms in the pytest process, "
        f"{figures['runner_cpu'] * 1000:.3f} ms in the case-runner process (they overlap on two cores)"
    )
    if "runner_faults" in figures:
        print(
            f"  what they rest on: {figures['floor_collections']:.1f} full collections per 1000 floor items, "
            f"{figures['frozen']:.0f} objects frozen, {figures['loggers']:.0f} loggers; "
            f"{figures['runner_faults']:.1f} minor page faults per case in the runner process"
        )
    if probe.kinds:
        print(
            f"  of the marginal cost: pytest's floor {figures['floor_wall'] * 1000:.3f} ms, the "
            f"reference's own calls {figures['bare'] * 1000:.3f} ms (made bare on prepared inputs, "
            f"benchmarks/overhead.py; the process cases' process_async calls included), the harness "
            f"{figures['own'] * 1000:.3f} ms (preparing inputs, the runner process, judging, reporting)"
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
    from wireconf.core.yaml_source import load_yaml_file

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


# --- side by side: this checkout against another commit's, in one run -----------------------------------

PROBE = Path(__file__).resolve().parent / "speed_probe.py"
BUILT = ".wireconf-speed-built"
"""Written into a built checkout of another commit once its venv is installed (``--before-cache`` reuses
it)."""


@dataclass(frozen=True)
class Side:
    label: str
    checkout: Path
    python: Path


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def build_before(ref: str, cache: Path) -> Side:
    """A checkout of ``ref`` under ``cache`` with a venv of its own (``pip install -e '.[dev]'``: its own
    dependencies and entry points, as a checkout of that commit has them; about three minutes with a warm
    pip cache). The files come from ``git archive``, so the repository's worktrees are left alone; a
    checkout built before (its marker file written) is reused."""
    sha = _git("rev-parse", "--verify", f"{ref}^{{commit}}")
    checkout = cache / sha[:12]
    python = checkout / ".venv" / "bin" / "python"
    if (checkout / BUILT).exists():
        return Side(ref, checkout, python)
    shutil.rmtree(checkout, ignore_errors=True)
    checkout.mkdir(parents=True)
    print(f"building {ref} ({sha[:12]}) in {checkout}: git archive, a venv, pip install -e '.[dev]'")
    archive = subprocess.run(["git", "archive", sha], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(checkout)], input=archive, check=True)
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(checkout / ".venv")], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "-e", f"{checkout}[dev]"],
        check=True,
        capture_output=True,
    )
    (checkout / BUILT).write_text(sha + "\n")
    return Side(ref, checkout, python)


def _env() -> dict[str, str]:
    """The environment of every side's processes: without PYTHONDONTWRITEBYTECODE, so that a command's
    start-up reads compiled modules on both sides alike instead of compiling them anew."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


class _ProbeProcess:
    """A ``speed_probe.py`` kept running in one side's checkout and interpreter, asked for rounds."""

    def __init__(self, side: Side, kinds: Sequence[str]) -> None:
        argv = [str(side.python), str(PROBE), "--checkout", str(side.checkout), "--kinds", ",".join(kinds)]
        self.side = side
        self.process = subprocess.Popen(
            argv, cwd=side.checkout, env=_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self._answer()

    def _answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("{"):
                answer: dict[str, Any] = json.loads(line)
                return answer
        raise SystemExit(f"the probe in {self.side.checkout} ended (exit {self.process.wait()})")

    def round(self) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write("round\n")
        self.process.stdin.flush()
        return self._answer()

    def close(self) -> None:
        assert self.process.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.write("quit\n")
            self.process.stdin.close()
        self.process.wait()


def _abba(sides: Sequence[Side], repeat: int) -> list[list[Side]]:
    """The order of each round: the sides, then reversed, and so on, so that a drift of the machine's
    load weighs on both alike."""
    return [list(sides) if r % 2 == 0 else list(reversed(sides)) for r in range(repeat)]


def side_by_side(refs: Sequence[str], repeat: int, cache: Path, kinds: Sequence[str]) -> None:
    here = _git("rev-parse", "--short", "HEAD")
    dirty = " + uncommitted changes" if _git("status", "--porcelain", "--untracked-files=no") else ""
    sides = [Side(f"this ({here}{dirty})", REPO, Path(sys.executable))]
    sides += [build_before(ref, cache) for ref in refs]
    print(f"side by side, {repeat} interleaved round(s) each (ABBA); every side in its own checkout and venv")
    figures: dict[Side, dict[str, float]] = {}
    probes = [_ProbeProcess(side, kinds) for side in sides]
    try:
        rounds: dict[Side, list[dict[str, Any]]] = {side: [] for side in sides}
        by_side = {probe.side: probe for probe in probes}
        for order in _abba(sides, repeat):
            for side in order:
                rounds[side].append(by_side[side].round())
        figures = {side: per_case(rounds[side]) for side in sides}
        _common_floor(figures, {side: {r.get("pytest") for r in rounds[side]} for side in sides})
    finally:
        for probe in probes:
            probe.close()
    corpus_runs: dict[Side, list[Timing]] = {side: [] for side in sides}
    for order in _abba(sides, repeat):
        for side in order:
            argv = [str(side.python), "-m", "pytest", "cases", "-q", "-p", "no:cacheprovider"]
            started, cpu = time.perf_counter(), _children_cpu()
            subprocess.run(argv, cwd=side.checkout, env=_env(), capture_output=True, check=False)
            corpus_runs[side].append(Timing(time.perf_counter() - started, _children_cpu() - cpu))
    for side in sides:
        run = best(corpus_runs[side])
        figures[side] |= {
            "corpus_wall": run.wall,
            "corpus_cpu": min(t.cpu for t in corpus_runs[side]),
            "ratio_wall": figures[side]["case_wall"] / figures[side]["floor_wall"],
            "ratio_cpu": figures[side]["case_cpu"] / figures[side]["floor_cpu"],
        }
    _print_side_by_side(sides, figures, kinds)


def _common_floor(figures: dict[Side, dict[str, float]], versions: dict[Side, set[object]]) -> None:
    """Where every side runs the same pytest, its floor is the same work: the median of the sides' floors
    stands for all of them, and each side's share is also given against it, so that a floor one side
    happened to measure high (or low) does not make its share look small (or large)."""
    seen = {v for side_versions in versions.values() for v in side_versions}
    if len(seen) != 1 or None in seen:
        return
    common_wall = statistics.median(f["floor_wall"] for f in figures.values())
    common_cpu = statistics.median(f["floor_cpu"] for f in figures.values())
    for f in figures.values():
        f["common_floor_wall"], f["common_floor_cpu"] = common_wall, common_cpu
        f["own_common"] = f["case_wall"] - common_wall - f["bare"]
        f["own_common_cpu"] = f["case_cpu"] - common_cpu - f["bare_cpu"]


ROWS = (
    ("marginal cost per case (wall)", "case_wall", "ms"),
    ("marginal cost per case (CPU)", "case_cpu", "ms"),
    ("pytest's floor (wall)", "floor_wall", "ms"),
    ("pytest's floor (CPU)", "floor_cpu", "ms"),
    ("ratio to the floor (wall)", "ratio_wall", "x"),
    ("ratio to the floor (CPU)", "ratio_cpu", "x"),
    ("the reference's own calls (wall)", "bare", "ms"),
    ("the reference's own calls (CPU)", "bare_cpu", "ms"),
    ("the harness's own share (wall)", "own", "ms"),
    ("the harness's own share (CPU)", "own_cpu", "ms"),
    ("pytest's floor common to the sides (wall)", "common_floor_wall", "ms"),
    ("pytest's floor common to the sides (CPU)", "common_floor_cpu", "ms"),
    ("the harness's own share, common floor (wall)", "own_common", "ms"),
    ("the harness's own share, common floor (CPU)", "own_common_cpu", "ms"),
    ("full collections per 1000 floor items", "floor_collections", "n"),
    ("objects frozen out of the collector's sight", "frozen", "n"),
    ("loggers in the process (pytest walks them per phase)", "loggers", "n"),
    ("minor page faults per case: the runner process", "runner_faults", "n"),
    ("CPU per case: the pytest process", "pytest_cpu", "ms"),
    ("CPU per case: the runner process", "runner_cpu", "ms"),
    ("`pytest cases -q` (wall)", "corpus_wall", "s"),
    ("`pytest cases -q` (CPU)", "corpus_cpu", "s"),
)


def _shown(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    if unit == "n":
        return f"{value:.1f}" if abs(value) < 100 else f"{value:.0f}"
    if unit == "ms":
        return f"{value * 1000:.3f} ms"
    return f"{value:.2f} {unit}" if unit == "s" else f"{value:.2f}x"


def _print_side_by_side(
    sides: Sequence[Side], figures: dict[Side, dict[str, float]], kinds: Sequence[str]
) -> None:
    this, others = sides[0], sides[1:]
    cases = {side.label: int(figures[side]["cases"]) for side in sides}
    counts = ", ".join(f"{label}: {count}" for label, count in cases.items())
    print(f"case cost on the {'/'.join(kinds)} cases without MCP ({counts})")
    header = ["figure", this.label, *(f"{s.label}" for s in others), *(f"this / {s.label}" for s in others)]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, key, unit in ROWS:
        if all(key not in figures[side] for side in sides):
            continue
        values = [_shown(figures[side].get(key), unit) for side in sides]
        ratios = []
        for other in others:
            mine, theirs = figures[this].get(key, 0.0), figures[other].get(key, 0.0)
            ratios.append(f"{mine / theirs:.2f}" if theirs > 0 and mine > 0 else "n/a")
        print("| " + " | ".join([label, *values, *ratios]) + " |")


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
    parser.add_argument(
        "--before",
        action="append",
        default=[],
        metavar="REF",
        help="compare with REF side by side (repeatable): the case cost and the corpus, in interleaved "
        "rounds, each figure's ratio; REF is built in a checkout of its own with its own venv",
    )
    parser.add_argument(
        "--before-cache",
        type=Path,
        default=None,
        help="keep the built checkouts of --before here and reuse them (default: a temporary folder)",
    )
    args = parser.parse_args()
    if args.before:
        print(
            f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPU(s)"
        )
        kinds = args.case_cost_kinds.split(",")
        with tempfile.TemporaryDirectory(prefix="wireconf-before-") as tmp:
            side_by_side(args.before, args.repeat, args.before_cache or Path(tmp), kinds)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return
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
