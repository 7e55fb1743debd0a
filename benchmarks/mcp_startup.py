"""What the mcp tool cases cost: importing the official MCP client, and one discovery (start the
corpus's stdio server, initialize, list its tools, stop it), as the reference does for each case.

    .venv/bin/python benchmarks/mcp_startup.py [--repeat 10] [--python python3]

The import is measured in a fresh interpreter (the reference imports the client when it loads, outside
any case's time limit). A discovery is timed per call, best and median of --repeat, with the server
started by --python (the corpus's cases say `python3`; on a machine where `python3` is a version
manager's shim, passing the interpreter itself shows what the shim adds). The reference keeps a
listing per launch for the process; each timed discovery here forgets it first.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from wireconf.reference_impl.tool_kinds import mcp

SERVER_DIR = Path(__file__).resolve().parent.parent / "cases" / "_data" / "mcp"


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import mcp.client.stdio, mcp.client.session; "
    code += "print(time.perf_counter() - t)"
    return float(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    )


def discovery_seconds(python: str, repeat: int) -> list[float]:
    tool = {
        "kind": "mcp",
        "name": "weather",
        "connection": {
            "kind": "stdio",
            "command": python,
            "args": ["server.py", "weather.json"],
            "cwd": str(SERVER_DIR),
        },
    }
    times = []
    for _ in range(repeat):
        mcp._LISTINGS.clear()
        started = time.perf_counter()
        assert len(mcp.signatures(tool)) == 4
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--python", default="python3", help="the command that starts the server")
    args = parser.parse_args()
    imports = [import_seconds() for _ in range(3)]
    print(f"import of the mcp client: best {min(imports) * 1000:.0f} ms of 3 fresh interpreters")
    times = discovery_seconds(args.python, args.repeat)
    print(
        f"one discovery with `{args.python}`: best {min(times) * 1000:.0f} ms, "
        f"median {statistics.median(times) * 1000:.0f} ms over {args.repeat}"
    )


if __name__ == "__main__":
    main()
