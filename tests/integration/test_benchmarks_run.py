"""The benchmark scripts are run on demand, so nothing else notices when the corpus outgrows one of them
(a new kind of case, a case that expects an error). Each must still run to its figures; what the figures
are is never asserted here."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys

import pytest

from tests.conftest import CASES, REPO
from wireconf.kinds.registry import open_corpus

SCRIPTS = sorted(
    p.name
    for p in (REPO / "benchmarks").glob("*.py")
    if '__name__ == "__main__"' in p.read_text(encoding="utf-8")
)
"""The scripts: not a module a script loads (``no_run_ahead.py``, a pytest plugin of ``run_ahead.py``)."""
ARGUMENTS = {
    # the scaled corpus and the whole test suite are too long to run inside the suite itself (the copy
    # is checked below); one mutant stands for `wireconf strength`, the stream cases for the case cost
    "speed.py": [
        *("--skip", "corpus,scaled,suite-own,suite", "--strength-args", "--rule 7.1.1/role-copied"),
        *("--case-cost-kinds", "stream"),
    ],
    "speed_probe.py": ["--kinds", "stream"],  # its side-by-side driver (speed.py --before) builds venvs
    # the in-process run: the exec run's hangs and restarts are tests/integration/test_hostile_adapters.py's
    "hostile_timeouts.py": ["--only", "in-process"],
    # one kind stands for the four, one moved adapter for both
    "emulator_overhead.py": ["--kinds", "process", "--moved", "litellm"],
    "exec_overhead.py": ["--whole-runs", "1", "--protocols", "4"],  # one round, the default protocol
    "emulator_floor.py": ["--kinds", "process"],  # one kind stands for the four
    "emulator_cost.py": ["--calls", "5", "--gate-calls", "2", "--record-calls", "5"],
    "exec_endpoints.py": ["--kinds", "stream"],  # one kind stands for the three
    "share_parts.py": ["--kinds", "stream"],
}


@pytest.mark.parametrize("script", SCRIPTS)
def test_benchmark_runs_to_its_figures(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), "--repeat", "1", *ARGUMENTS.get(script, [])],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"benchmarks/{script} failed:\n{done.stderr[-3000:]}"
    assert re.search(r"\d+(\.\d+)? ms", done.stdout), f"benchmarks/{script} printed no figure:\n{done.stdout}"


def test_the_scaled_corpus_is_the_corpus_plus_unique_copies(tmp_path, corpus, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    speed = importlib.import_module("speed")
    count = speed.make_scaled_corpus(tmp_path, copies=2)
    copied = sum(1 for case in corpus.cases() if case.kind in speed.SCALED_KINDS)
    assert count == len(list(corpus.cases())) + 2 * copied
    scaled = open_corpus(tmp_path / "cases")
    assert not list(scaled.problems())
    ids = {case.id for case in scaled.cases()}
    some = next(case for case in corpus.cases() if case.kind == "stream")
    assert {some.id, f"{some.id}.copy1", f"{some.id}.copy2"} <= ids
    assert (tmp_path / "cassettes").resolve() == (CASES.parent / "cassettes").resolve()


def test_share_parts_runs_to_the_runner_parts() -> None:
    """``share_parts.py --runner-parts``: the runner process's time part by part (its own mode), and the
    run's stretches (each process's CPU a case, the pytest process's wait for the runner)."""
    script = str(REPO / "benchmarks" / "share_parts.py")
    done = subprocess.run(
        [sys.executable, script, "--runner-parts", "--repeat", "1", "--kinds", "stream"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"benchmarks/share_parts.py --runner-parts failed:\n{done.stderr[-3000:]}"
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and "`" in line]
    assert len(rows) == 6, done.stdout  # the five parts and the rest
    assert all(re.search(r"\| \d+\.\d \| \d+\.\d \|$", row) for row in rows), done.stdout
    # the stretches: the first case's wait, then the stream cases' one stretch, each process's CPU a case
    assert re.search(r"^\| the first case \(.*\) \| 1 \| \| \| \d+\.\d \|$", done.stdout, re.M), done.stdout
    assert re.search(r"^\| stream \| \d+ \| \d+ \| \d+ \| \d+\.\d \|$", done.stdout, re.M), done.stdout
