"""The optional concepts of the spec a case needs, read from its inputs (never tagged by hand).

Only the kinds that turn an agent and messages into a request use them (``wire``, ``e2e``, and ``trace``
cases that trace ``execute``): a processor never sees a tool's kind. A case needs

- ``<kind>-tools`` for each tool of kind ``prompty``, ``mcp`` or ``openapi``, and ``custom-tools`` for a
  tool of any other kind than ``function`` (§7.1.3's ``*``);
- ``tool-bindings`` when a tool has ``bindings``;
- ``message-metadata`` when a message has non-empty ``metadata``;
- ``api-type`` when ``agent.model.apiType`` is not the one of the case's api (``completions`` on an
  OpenAI Chat case: the dispatch itself is under test).

The names are the adapter contract's ``CONCEPTS``.
"""

from __future__ import annotations

from typing import Any

BUILT_IN_TOOL_KINDS = {"prompty": "prompty-tools", "mcp": "mcp-tools", "openapi": "openapi-tools"}
REQUEST_KINDS = ("wire", "e2e", "trace")

API_TYPE_OF: dict[str, tuple[str | None, ...]] = {
    "openai.chat": (None, "chat"),
    "openai.responses": ("responses",),
    "openai.embeddings": ("embedding",),
    "openai.images": ("image",),
    "anthropic.messages": (None, "chat"),
    "gemini.generate_content": (None, "chat"),
}
"""The ``apiType`` values that merely name the case's api (what any runtime's adapter maps from ``api``)."""


def _tool_concepts(tool: dict[str, Any]) -> set[str]:
    kind = tool.get("kind")
    found = set()
    if kind != "function":
        found.add(BUILT_IN_TOOL_KINDS.get(str(kind), "custom-tools"))
    if tool.get("bindings"):
        found.add("tool-bindings")
    return found


def needed_concepts(kind: str, api: str, raw: dict[str, Any]) -> list[str]:
    """The concepts a case of ``kind`` on ``api`` with inputs ``raw`` (the case as written) needs."""
    if kind not in REQUEST_KINDS or (kind == "trace" and raw.get("call") != "execute"):
        return []
    agent = raw.get("agent") or {}
    found: set[str] = set()
    for tool in agent.get("tools") or []:
        if isinstance(tool, dict):
            found |= _tool_concepts(tool)
    if any(isinstance(m, dict) and m.get("metadata") for m in raw.get("messages") or []):
        found.add("message-metadata")
    api_type = (agent.get("model") or {}).get("apiType")
    if api_type not in API_TYPE_OF.get(api, (api_type,)):
        found.add("api-type")
    return sorted(found)
