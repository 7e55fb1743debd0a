"""A small MCP server over stdio that serves the tools listed in a JSON file (standard library only).

    python3 server.py TOOLS.json [--page-size N]

It speaks the MCP lifecycle (``initialize`` → ``notifications/initialized``), answers ``ping`` and
``tools/list`` (split into pages of N tools with ``nextCursor`` when ``--page-size`` is given, so that a
client must follow cursors to see every tool) and exits when its stdin closes. It imports nothing but
the standard library, so that any ``python3`` on PATH runs it, whatever runtime the corpus is testing.
A tools file that cannot be read is reported on stderr and the server exits 1 before any answer: the
corpus uses that as "a server that does not start".
"""

from __future__ import annotations

import json
import sys
from typing import Any

PROTOCOL_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
SERVER_INFO = {"name": "wireconf-corpus-server", "version": "1.0.0"}


def load_tools(argv: list[str]) -> tuple[list[dict[str, Any]], int | None]:
    if not argv:
        raise SystemExit("usage: server.py TOOLS.json [--page-size N]")
    page_size = int(argv[argv.index("--page-size") + 1]) if "--page-size" in argv else None
    try:
        with open(argv[0], encoding="utf-8") as handle:
            tools = json.load(handle)["tools"]
    except (OSError, ValueError, KeyError) as exc:
        print(f"server.py: cannot load the tools file {argv[0]!r}: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    return tools, page_size


def list_tools(tools: list[dict[str, Any]], page_size: int | None, cursor: Any) -> dict[str, Any]:
    start = int(cursor) if isinstance(cursor, str) and cursor.isdigit() else 0
    end = len(tools) if page_size is None else start + page_size
    result: dict[str, Any] = {"tools": tools[start:end]}
    if end < len(tools):
        result["nextCursor"] = str(end)
    return result


def answer(request: dict[str, Any], tools: list[dict[str, Any]], page_size: int | None) -> dict[str, Any]:
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "result": {
                "protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[-1],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": SERVER_INFO,
            }
        }
    if method == "ping":
        return {"result": {}}
    if method == "tools/list":
        return {"result": list_tools(tools, page_size, params.get("cursor"))}
    return {"error": {"code": -32601, "message": f"method not found: {method}"}}


def main() -> None:
    tools, page_size = load_tools(sys.argv[1:])
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            reply = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "parse error"}}
        else:
            if "id" not in request:  # a notification (notifications/initialized, cancellations): no answer
                continue
            reply = {"jsonrpc": "2.0", "id": request["id"], **answer(request, tools, page_size)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
