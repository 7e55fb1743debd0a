"""The benchmark scripts are run on demand, so nothing else notices when the corpus outgrows one of them
(a new kind of case, a case that expects an error). Each must still run to its figures; what the figures
are is never asserted here."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.conftest import REPO

SCRIPTS = sorted(p.name for p in (REPO / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("script", SCRIPTS)
def test_benchmark_runs_to_its_figures(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / script), "--repeat", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"benchmarks/{script} failed:\n{done.stderr[-3000:]}"
    assert re.search(r"\d+(\.\d+)? ms", done.stdout), f"benchmarks/{script} printed no figure:\n{done.stdout}"
