"""``mcp`` tools: the tools a real MCP server lists, discovered through the official ``mcp`` client.

The server is started for the discovery and stopped right after it (the client's context managers
close its stdin, then terminate it), so nothing outlives the call. The whole discovery is bounded by
``DISCOVERY_TIMEOUT``: a server that never answers costs that long, never the run. Every failure to
reach the server is a ``ConnectionError`` (an ``OSError``) naming the server and what went wrong,
with the tail of the server's stderr.

A successful listing is kept for the life of the process, per launch (command, args, cwd, env), as
runtimes cache an MCP server's tool list: starting a Python server costs a few hundred milliseconds,
and the corpus asks the same server several times. Failures are never kept.
"""

from __future__ import annotations

import asyncio
import copy
import tempfile
from typing import Any, TextIO

from wireconf.reference_impl.tool_kinds import Signature, tool_label

DISCOVERY_TIMEOUT = 30.0
"""Seconds for spawn, handshake and listing: the reference's own bound, generous and apart from any
harness's, so that a slow machine (a Python server takes seconds to start under load) never fails a
server that answers. In a wireconf run the case's time limit (``--case-timeout``) stops a discovery
that takes longer than it; this bound holds where nothing else does (``--case-timeout=0``, other
callers)."""

STDERR_TAIL = 600

_LISTINGS: dict[tuple[Any, ...], list[dict[str, Any]]] = {}


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside the exception groups that anyio task groups raise."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


async def _list_tools(
    command: str, args: list[str], cwd: str | None, env: dict[str, str] | None, errlog: TextIO
) -> list[dict[str, Any]]:
    # The official client is imported on first use: about a second of CPU that every process importing
    # the reference would otherwise pay for nothing. wireconf imports it before its case runner starts
    # when a selected case has mcp tools, so that the import is outside every case's time limit.
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.types import PaginatedRequestParams

    params = StdioServerParameters(command=command, args=args, cwd=cwd, env=env)
    tools: list[dict[str, Any]] = []
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        cursor: str | None = None
        while True:  # project decision 7.1.3/mcp-all-pages: follow nextCursor to the last page
            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
            tools += [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in page.tools]
            cursor = page.next_cursor
            if not cursor:
                break
    return tools


def discover(tool: dict[str, Any]) -> list[dict[str, Any]]:
    """The MCP tools (as the protocol spells them: name, description, inputSchema, ...) of the server."""
    connection = tool.get("connection") or {}
    kind = connection.get("kind", "stdio")
    if kind != "stdio" or not connection.get("command"):
        raise ValueError(
            f"{tool_label(tool)}: the reference reaches MCP servers over stdio only "
            f"(connection {{kind: stdio, command, args, cwd, env}}), got {connection!r}"
        )
    command, args = str(connection["command"]), [str(a) for a in connection.get("args") or []]
    server = tool.get("serverName") or command
    launch = " ".join([command, *args])

    async def bounded(errlog: TextIO) -> list[dict[str, Any]]:
        listing = _list_tools(command, args, connection.get("cwd"), connection.get("env"), errlog)
        return await asyncio.wait_for(listing, DISCOVERY_TIMEOUT)

    key = (command, tuple(args), connection.get("cwd"), tuple(sorted((connection.get("env") or {}).items())))
    if key in _LISTINGS:
        return copy.deepcopy(_LISTINGS[key])  # bindings and strict mode edit what they are given
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as errlog:
        try:
            _LISTINGS[key] = asyncio.run(bounded(errlog))
            return copy.deepcopy(_LISTINGS[key])
        except Exception as exc:
            cause = _leaf(exc)
            if isinstance(cause, TimeoutError):
                why = f"no answer within {DISCOVERY_TIMEOUT:g} s"
            else:
                why = f"{type(cause).__name__}: {cause}"
            errlog.seek(0)
            stderr = errlog.read()[-STDERR_TAIL:].strip()
            raise ConnectionError(
                f"{tool_label(tool)}: MCP server {server!r} ({launch}) did not start or answer: {why}"
                + (f"; its stderr: {stderr}" if stderr else "")
            ) from exc


def signatures(tool: dict[str, Any]) -> list[Signature]:
    found = discover(tool)
    allowed = tool.get("allowedTools")
    if allowed:
        found = [t for t in found if t.get("name") in allowed]
    return [Signature(t.get("name"), t.get("description"), t.get("inputSchema") or {}) for t in found]
