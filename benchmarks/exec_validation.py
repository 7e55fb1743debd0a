"""What checking every exec message against its record costs, per message and per case.

    .venv/bin/python benchmarks/exec_validation.py [--repeat 200]

Reads the messages of tests/data/exec_transcript.jsonl (real runs: the Python helper in protocols 3 and
2, the Node.js fake, the recorded-inputs fake) and reads each the way the receiving side does, the
old way (``json.loads`` and the shape check ``messages.decode`` made before the records) and the new
(``messages.decode``: the same, then the sender's record), interleaved round by round, CPU time
(``time.process_time``, which a loaded machine inflates less than wall time), best round kept. A case
over ``exec:`` reads about 3-5 messages (a call, its events, a yield or two, its result).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from wireconf.exec_protocol.messages import decode

TRANSCRIPT = Path(__file__).resolve().parent.parent / "tests" / "data" / "exec_transcript.jsonl"


def _old(line: str) -> dict:
    message = json.loads(line)
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ValueError(line)
    return message


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=200, help="rounds, the best kept")
    args = parser.parse_args()
    entries = [json.loads(line) for line in TRANSCRIPT.read_text(encoding="utf-8").splitlines()]
    lines = [(json.dumps(e["message"], ensure_ascii=False), e["from"]) for e in entries]
    best = {"old": float("inf"), "new": float("inf")}
    for _ in range(args.repeat):
        for name in best:
            started = time.process_time()
            for line, sender in lines:
                _old(line) if name == "old" else decode(line, sender)
            best[name] = min(best[name], time.process_time() - started)
    size = sum(len(line) for line, _ in lines) / len(lines)
    per = {name: seconds / len(lines) * 1e6 for name, seconds in best.items()}
    print(f"{len(lines)} messages (mean {size:.0f} bytes), best of {args.repeat} rounds, CPU per message:")
    print(f"  json.loads + shape check  {per['old']:7.1f} µs")
    print(f"  decode (+ its record)     {per['new']:7.1f} µs  ({per['new'] / per['old']:.2f}x)")
    print(f"  added per case of 5 messages: {5 * (per['new'] - per['old']) / 1000:.3f} ms")


if __name__ == "__main__":
    main()
