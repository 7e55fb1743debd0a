"""An exec runtime (run as ``python exec_errors.py HELLO_EXTRA ERROR``, both JSON) that answers every call
with the same error message: how the harness reads an error's category, or its absence, per hello."""

from __future__ import annotations

import json
import sys


def main() -> None:
    extra, error = json.loads(sys.argv[1]), json.loads(sys.argv[2])
    hello = {"type": "hello", "name": "errors", "version": "1", "capabilities": ["process:openai.embeddings"]}
    print(json.dumps({**hello, "protocol": 2, **extra}), flush=True)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "stop":
            return
        if message["type"] == "call":
            print(json.dumps({"type": "error", "id": message["id"], "error": error}), flush=True)


if __name__ == "__main__":
    main()
