"""What recording costs, and replaying what was recorded, against the fake provider server.

    .venv/bin/python benchmarks/record_roundtrip.py [--repeat 3]

Runs the record-and-replay corpus of the tests (tests/integration/test_record_replay.py: every api, streams
included, through the official SDKs with planted keys) in-process: once with --record-mode=once into
a fresh folder (the fake server on 127.0.0.1 answers; scrubbing, scan and atomic writes included),
then in replay with the server stopped. Best of --repeat, per case.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.fake_provider import PLANTED_KEYS, FakeProvider  # noqa: E402
from tests.integration.test_record_replay import IMPL, write_corpus  # noqa: E402


def run(*args: str) -> float:
    started = time.perf_counter()
    with redirect_stdout(io.StringIO()):
        code = pytest.main(["-q", "-p", "no:cacheprovider", IMPL, *args])
    assert code == 1, f"pytest exited {code} (one case is designed to fail)"
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    best_record = best_replay = float("inf")
    cases = 11
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            corpus, cassettes = write_corpus(Path(tmp)), Path(tmp) / "cassettes"
            provider = FakeProvider(PLANTED_KEYS).start()
            saved = dict(os.environ)
            os.environ.update(provider.environ())
            try:
                best_record = min(
                    best_record, run(str(corpus), "--record-mode=once", f"--cassettes={cassettes}")
                )
            finally:
                provider.stop()
                os.environ.clear()
                os.environ.update(saved)
            best_replay = min(best_replay, run(str(corpus), f"--cassettes={cassettes}"))
    print(f"{cases} e2e cases, 6 apis (4 streams)")
    for label, seconds in (
        ("record against the fake server", best_record),
        ("replay, server stopped", best_replay),
    ):
        print(f"{label:32} {seconds * 1000:7.1f} ms, {seconds / cases * 1000:6.1f} ms per case")


if __name__ == "__main__":
    main()
