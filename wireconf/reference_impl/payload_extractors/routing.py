"""How an ``extract`` call is routed to an extractor (docs/seeds.md): a bare body through the api's
built-in schema, an ATOF event ``{kind, category, data_schema, data}`` through the registry resolvers by
its own ``data_schema``. Written once for every runtime of seed 003: the reference passes its own
registry, NeMo Agent Toolkit's adapter (``wireconf.adapters.nat``) passes ``nat.atof.extractors``.
"""

from __future__ import annotations

from typing import Any, Protocol

API_SCHEMAS: dict[str, dict[str, str]] = {
    "openai.chat": {"name": "openai/chat-completions", "version": "1"},
    "anthropic.messages": {"name": "anthropic/messages", "version": "1"},
    "gemini.generate_content": {"name": "gemini/generate-content", "version": "1"},
}


class Resolvers(Protocol):
    """What routing needs of a registry of extractors (a module of the reference, or NAT's)."""

    def resolve_llm_extractor(self, schema: Any) -> Any: ...
    def resolve_mark_extractor(self, schema: Any) -> Any: ...
    def resolve_tool_extractor(self, schema: Any) -> Any: ...


def is_event(value: Any) -> bool:
    return isinstance(value, dict) and value.get("kind") in ("scope", "mark") and "data" in value


def route(resolvers: Resolvers, api: str, request: Any, response: Any) -> dict[str, Any]:
    """The extraction of ``request`` and ``response`` on ``api`` by the extractors ``resolvers`` finds."""
    event = response if is_event(response) else request if is_event(request) else None
    if event is None:
        schema: Any = API_SCHEMAS[api]
        request_data, response_data = request, response
    else:
        schema = event.get("data_schema")
        if event["kind"] == "mark":
            mark = resolvers.resolve_mark_extractor(schema).extract_role_and_content(event["data"])
            return {"mark": None if mark is None else list(mark)}
        if event.get("category") == "tool":
            return {
                "tool_result": resolvers.resolve_tool_extractor(schema).extract_tool_result(event["data"])
            }
        request_data = request["data"] if is_event(request) else None
        response_data = response["data"] if is_event(response) else None
    extractor = resolvers.resolve_llm_extractor(schema)
    return {
        "input_messages": extractor.extract_input_messages(request_data),
        "output_text": extractor.extract_output_text(response_data),
        "tool_calls": extractor.extract_tool_calls(response_data),
    }
