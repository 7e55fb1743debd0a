"""Whether the process runner's run-ahead pays: the whole corpus (``pytest cases``, the README's command,
start-up included) with the run-ahead (the runner starts up to ``ForkedRunner.AHEAD`` planned cases
while pytest reports) and without it (``-p no_run_ahead``: each case sent when pytest asks for it),
best of ``--repeat`` runs each, interleaved so that the machine's load falls on both alike;
``--before CHECKOUT`` adds the same command run in another checkout (this venv, that checkout's code first
on the path).

    .venv/bin/python benchmarks/run_ahead.py [--repeat 3] [--before /work/main]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def once(checkout: Path, extra: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (children included) of one run, and its last line."""
    command = [sys.executable, "-m", "pytest", "cases", "-q", "-n", "0", "-p", "no:cacheprovider", *extra]
    env = {**os.environ, "PYTHONPATH": f"{checkout}{os.pathsep}{REPO / 'benchmarks'}"}
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run(command, cwd=checkout, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu, (done.stdout.strip().splitlines() or [""])[-1]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path)
    args = parser.parse_args()
    variants = [("run-ahead (kept)", REPO, []), ("no run-ahead", REPO, ["-p", "no_run_ahead"])]
    if args.before is not None:
        variants.insert(0, ("before (main)", args.before, []))
    best: dict[str, tuple[float, float, str]] = {}
    for _ in range(args.repeat):
        for label, checkout, extra in variants:
            wall, cpu, last = once(checkout, extra)
            if label not in best or wall < best[label][0]:
                best[label] = (wall, cpu, last)
    print(f"whole corpus, best of {args.repeat} (load average {os.getloadavg()[0]:.1f}):")
    kept = best["run-ahead (kept)"][0]
    for label, (wall, cpu, last) in best.items():
        found = re.search(r"(\d+) passed", last)
        per_case = f"{1000 * wall / int(found.group(1)):5.2f} ms a case" if found else ""
        print(
            f"  {label:18} wall {wall:6.2f} s   cpu {cpu:6.2f} s   {per_case}"
            f"   {wall / kept:4.2f}x the kept run   ({last})"
        )


if __name__ == "__main__":
    main()
