"""The optional concepts of the spec a case needs, read from its inputs (never tagged by hand).

Only the cases whose agent and messages the runtime turns into a request use them (their kind says so:
``Kind.builds_request``): a processor never sees a tool's kind. A case needs

- ``<kind>-tools`` for each tool of kind ``prompty``, ``mcp`` or ``openapi``, and ``custom-tools`` for a
  tool of any other kind than ``function`` (§7.1.3's ``*``);
- ``tool-bindings`` when a tool has ``bindings``;
- ``message-metadata`` when a message has non-empty ``metadata``;
- ``api-type`` when ``agent.model.apiType`` is not one that names the case's api (``completions`` on an
  OpenAI Chat case: the dispatch itself is under test; the api's record lists them, ``Api.api_types``).

The names are the adapter contract's ``CONCEPTS``.
"""

from __future__ import annotations

from typing import Any

from wireconf.kinds.registry import KINDS
from wireconf.providers.registry import APIS

BUILT_IN_TOOL_KINDS = {"prompty": "prompty-tools", "mcp": "mcp-tools", "openapi": "openapi-tools"}


def _tool_concepts(tool: dict[str, Any]) -> set[str]:
    kind = tool.get("kind")
    found = set()
    if kind != "function":
        found.add(BUILT_IN_TOOL_KINDS.get(str(kind), "custom-tools"))
    if tool.get("bindings"):
        found.add("tool-bindings")
    return found


_NEEDED: dict[int, tuple[dict[str, Any], str, str, list[str]]] = {}
"""What each case needs, worked out once per process (the run plan, its setup and the warm-up ask): by
the case as written, which is kept here so that its id stays its own."""
_NEEDED_KEPT = 16384


def needed_concepts(kind: str, api: str, raw: dict[str, Any]) -> list[str]:
    """The concepts a case of ``kind`` on ``api`` with inputs ``raw`` (the case as written) needs."""
    known = _NEEDED.get(id(raw))
    if known is not None and known[0] is raw and known[1] == kind and known[2] == api:
        return list(known[3])
    found = _needed(kind, api, raw)
    if len(_NEEDED) >= _NEEDED_KEPT:
        _NEEDED.pop(next(iter(_NEEDED)))
    _NEEDED[id(raw)] = (raw, kind, api, found)
    return list(found)


def _needed(kind: str, api: str, raw: dict[str, Any]) -> list[str]:
    known = KINDS.get(kind)
    if known is None or not known.builds_request(raw):
        return []
    agent = raw.get("agent") or {}
    found: set[str] = set()
    for tool in agent.get("tools") or []:
        if isinstance(tool, dict):
            found |= _tool_concepts(tool)
    if any(isinstance(m, dict) and m.get("metadata") for m in raw.get("messages") or []):
        found.add("message-metadata")
    api_type = (agent.get("model") or {}).get("apiType")
    record = APIS.get(api)
    if record is not None and record.api_types is not None and api_type not in record.api_types:
        found.add("api-type")
    return sorted(found)
