"""The payload extractors of seed 003 (extract): SchemaMap engine, built-in maps, registries.

``extract(request, response)`` receives bodies (extracted with the api's built-in schema) or ATOF
events ``{kind, category, data_schema, data}`` (resolved through the registries); docs/seeds.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from wireconf.reference_impl.payload_extractors.registry import (
    register_anthropic_messages_v1,
    register_gemini_generate_content_v1,
    resolve_llm_extractor,
    resolve_mark_extractor,
    resolve_tool_extractor,
)

API_SCHEMAS: dict[str, dict[str, str]] = {
    "openai.chat": {"name": "openai/chat-completions", "version": "1"},
    "anthropic.messages": {"name": "anthropic/messages", "version": "1"},
    "gemini.generate_content": {"name": "gemini/generate-content", "version": "1"},
}

register_anthropic_messages_v1()
register_gemini_generate_content_v1()


def is_event(value: Any) -> bool:
    return isinstance(value, dict) and value.get("kind") in ("scope", "mark") and "data" in value


def extract(api: str, request: Any, response: Any) -> dict[str, Any]:
    event = response if is_event(response) else request if is_event(request) else None
    if event is None:
        schema: Any = API_SCHEMAS[api]
        request_data, response_data = request, response
    else:
        schema = event.get("data_schema")
        if event["kind"] == "mark":
            mark = resolve_mark_extractor(schema).extract_role_and_content(event["data"])
            return {"mark": None if mark is None else list(mark)}
        if event.get("category") == "tool":
            return {"tool_result": resolve_tool_extractor(schema).extract_tool_result(event["data"])}
        request_data = request["data"] if is_event(request) else None
        response_data = response["data"] if is_event(response) else None
    extractor = resolve_llm_extractor(schema)
    return {
        "input_messages": extractor.extract_input_messages(request_data),
        "output_text": extractor.extract_output_text(response_data),
        "tool_calls": extractor.extract_tool_calls(response_data),
    }


FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    ("extract", api): functools.partial(extract, api) for api in API_SCHEMAS
}
