"""How long a run takes, and what it says, when runtimes hang in the ways a time limit must survive.

    .venv/bin/python benchmarks/hostile_timeouts.py [--repeat 1] [--case-timeout 2] [--only in-process|exec]

Runs the corpus's OpenAI Chat wire, process and stream cases twice with --case-timeout:

- in-process, `tests.fakes.hostile:all_three`: its first stream call sleeps 20 s in C code that holds
  the GIL, its first process call returns a Mapping whose iteration blocks for 20 s, its first wire
  call ends its own process (os._exit);
- over exec:, `tests.fakes.exec_hostile:adapter` served by the Python helper: the same GIL hang and
  blocking Mapping, and a crash on its first wire call after which its restart hangs before saying
  hello (once).

Prints per run: the total wall time, the outcome counts, and each error's message. Every other case
must be judged (passed, or failed on its own merits). --repeat runs each that many times and reports
the fastest.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

RUNS = {
    "in-process (GIL hang, blocking Mapping, os._exit)": "tests.fakes.hostile:all_three",
    "exec: (GIL hang, blocking Mapping, crash then a restart that hangs)": (
        f"exec:{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve tests.fakes.exec_hostile:adapter"
    ),
}


RUN_NAMES = dict(zip(("in-process", "exec"), RUNS, strict=True))


def run_once(impl: str, timeout: float) -> tuple[float, list[dict]]:
    with tempfile.TemporaryDirectory(prefix="wireconf-hostile-") as tmp:
        markers = Path(tmp) / "markers"
        markers.mkdir()
        report = Path(tmp) / "run.jsonl"
        env = {**os.environ, "PYTHONPATH": str(REPO), "WIRECONF_HOSTILE_DIR": str(markers)}
        command = [sys.executable, "-m", "pytest", str(REPO / "cases"), "-q", "-p", "no:cacheprovider"]
        command += [
            f"--impl={impl}",
            f"--case-timeout={timeout:g}",
            "--api=openai.chat",
            f"--report={report}",
        ]
        command += ["--kind=wire", "--kind=process", "--kind=stream"]
        started = time.perf_counter()
        subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=1800)
        took = time.perf_counter() - started
        records = [json.loads(line) for line in report.read_text().splitlines()]
    return took, records


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--case-timeout", type=float, default=2.0)
    parser.add_argument(
        "--only",
        choices=sorted(RUN_NAMES),
        default=None,
        help="one of the two runs (the test suite checks that the script runs on the quicker one)",
    )
    args = parser.parse_args()
    for label, impl in RUNS.items():
        if args.only is not None and RUN_NAMES[args.only] != label:
            continue
        best, records = min(
            (run_once(impl, args.case_timeout) for _ in range(args.repeat)), key=lambda r: r[0]
        )
        counts = Counter(record["status"] for record in records)
        print(
            f"{label}: {best * 1000:.0f} ms for {len(records)} cases "
            f"with --case-timeout {args.case_timeout:g}"
        )
        print("  " + ", ".join(f"{status} {count}" for status, count in sorted(counts.items())))
        for record in records:
            if record["status"] == "error":
                message = (record.get("message") or "").splitlines()
                error = next((line for line in message if line.startswith("error: ")), message[-1:] or [""])
                print(f"  {record['id']}: {error if isinstance(error, str) else error[0]}")


if __name__ == "__main__":
    main()
