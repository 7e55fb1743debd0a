"""Runs that record into one cassettes folder at the same time, against the fake provider server: how
many cases each run gets wrong because of another's writes (there should be none).

    .venv/bin/python benchmarks/concurrent_recording.py [--repeat 3]

Each repetition, on the record-and-replay corpus of the tests (tests/integration/test_record_replay.py:
eleven e2e cases, every api, streams included, through the official SDKs) in a fresh folder:

- ``pytest -n 2 --record-mode=all``: two xdist workers recording, each into its own cassettes, each
  watching the whole folder while its cases run;
- a recording run (``--record-mode=all``) and a replay run (``--record-mode=none``) of the same corpus
  started together on one cassettes folder (recorded once beforehand, so that the replay has what it
  reads): the replay's cases run while the other run rewrites the cassettes.

Counted per run: errors (pytest's E), and the cases blamed for a write of the folder ("changed while
this case ran"). One case of the corpus is designed to fail (its expectation differs on purpose); a
failure is not counted. tests/integration/test_concurrent_recording.py makes the overlap certain on
two cases; this shows it on a whole corpus, where it happens by itself.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.fake_provider import KEY_VARIABLES, PLANTED_KEYS, FakeProvider  # noqa: E402
from tests.integration.test_record_replay import IMPL, write_corpus  # noqa: E402

BLAMED = "changed while this case ran"


def _errors(output: str) -> int:
    match = re.search(r"(\d+) errors?\b", output.strip().splitlines()[-1] if output.strip() else "")
    return int(match[1]) if match else 0


class Runs:
    def __init__(self, work: Path, env: dict[str, str]) -> None:
        self.corpus = write_corpus(work)
        self.cassettes = work / "cassettes"
        self.work, self.env = work, env

    def start(self, *args: str) -> subprocess.Popen[str]:
        argv = [sys.executable, "-m", "pytest", str(self.corpus), "-q", "-p", "no:cacheprovider", IMPL]
        argv += [f"--cassettes={self.cassettes}", *args]
        return subprocess.Popen(
            argv, cwd=self.work, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )


def _summary(label: str, output: str, started: float) -> tuple[int, int]:
    errors, blamed = _errors(output), output.count(BLAMED)
    took = (time.perf_counter() - started) * 1000
    last = output.strip().splitlines()[-1] if output.strip() else "(no output)"
    print(f"  {label:24} {took:6.0f} ms; {last}; errors {errors}, cases blamed for a write {blamed}")
    return errors, blamed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    provider = FakeProvider(PLANTED_KEYS).start()
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    env |= provider.environ() | {"PYTHONPATH": str(REPO)}
    totals = {"-n 2 --record-mode=all": [0, 0], "recording beside replay": [0, 0]}
    try:
        for repetition in range(1, args.repeat + 1):
            print(f"repetition {repetition}")
            with tempfile.TemporaryDirectory(prefix="wireconf-concurrent-") as tmp:
                runs = Runs(Path(tmp), env)
                started = time.perf_counter()
                output = runs.start("-n", "2", "--record-mode=all").communicate()[0]
                errors, blamed = _summary("-n 2 --record-mode=all", output, started)
                totals["-n 2 --record-mode=all"][0] += errors
                totals["-n 2 --record-mode=all"][1] += blamed
                started = time.perf_counter()
                recording = runs.start("--record-mode=all")
                replay = runs.start("--record-mode=none")
                for label, run in (("recording run", recording), ("replay run beside it", replay)):
                    errors, blamed = _summary(label, run.communicate()[0], started)
                    totals["recording beside replay"][0] += errors
                    totals["recording beside replay"][1] += blamed
    finally:
        provider.stop()
    print(f"over {args.repeat} repetition(s):")
    for label, (errors, blamed) in totals.items():
        print(f"  {label}: {errors} errors, {blamed} cases blamed for another's write")


if __name__ == "__main__":
    main()
