"""What wireconf costs a project that installs it beside its own tests and never asks for a case.

    .venv/bin/python benchmarks/plugin_startup.py [--repeat 10]

A temporary project with one trivial test, run as its maintainer runs it (`python -m pytest -q` in a
fresh process, with this interpreter, where wireconf is installed) and again with `-p no:wireconf`; the
two alternate, --repeat times each, and the median and the best wall time of each are reported with
their difference and ratio. The target: within 10% or 50 ms of the run without wireconf.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRIVIAL = "def test_trivial():\n    assert 1 + 1 == 2\n"
TARGET_RATIO = 1.10
TARGET_MS = 50.0
UNSET = ("PYTEST_ADDOPTS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")
"""Settings of the calling shell that would change what pytest loads."""


def _run(project: Path, *extra: str) -> float:
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    }
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *extra],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(
            f"pytest {' '.join(extra)} failed in the trivial project:\n{done.stdout}{done.stderr}"
        )
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs of each variant (default 10)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / "test_trivial.py").write_text(TRIVIAL)
        _run(project)  # the first run compiles and warms the file cache for both
        times: dict[str, list[float]] = {"with wireconf": [], "-p no:wireconf": []}
        for _ in range(args.repeat):
            times["with wireconf"].append(_run(project))
            times["-p no:wireconf"].append(_run(project, "-p", "no:wireconf"))
    print(f"pytest start-up of a project with one trivial test, {args.repeat} run(s) each, alternating")
    for label, runs in times.items():
        print(
            f"  {label:16} median {statistics.median(runs) * 1000:7.1f} ms, best {min(runs) * 1000:7.1f} ms"
        )
    with_, without = (statistics.median(times[k]) for k in times)
    extra_ms = (with_ - without) * 1000
    ratio = with_ / without
    within = ratio <= TARGET_RATIO or extra_ms <= TARGET_MS
    print(
        f"  wireconf adds {extra_ms:+.1f} ms (median), ratio {ratio:.3f}; target within "
        f"{(TARGET_RATIO - 1) * 100:.0f}% or {TARGET_MS:.0f} ms: {'met' if within else 'NOT met'}"
    )
    print(f"  load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPU(s)")


if __name__ == "__main__":
    main()
