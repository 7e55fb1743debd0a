"""How a runtime's payload extractors are called in a reproduction of an ``extract`` case (seed 003):
the payloads the kind hands the adapter (``wireconf.kinds.extract.payloads``: bare bodies, or ATOF events
around them) inlined, routed as the harness routes them (``wireconf.reference_impl.payload_extractors.
routing``) and written out for the one route the case takes, so the script shows the extractor's own
calls. No HTTP: the result is what the extractors return.

A template takes the api and the two payloads and gives a ``script.Call`` whose ``call`` returns the
result (``{input_messages, output_text, tool_calls}``, ``{tool_result}`` or ``{mark}``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wireconf.reference_impl.payload_extractors.routing import API_SCHEMAS, is_event
from wireconf.repro.script import Call, literal, pinned

ExtractTemplate = Callable[[str, Any, Any], Call]


def _route(request: Any, response: Any, api: str) -> list[str]:
    """The lines of ``call`` that run the route ``routing.route`` takes for these payloads, on
    ``extractors`` (a registry of resolvers)."""
    event = response if is_event(response) else request if is_event(request) else None
    if event is None:
        return [
            f"extractor = extractors.resolve_llm_extractor({literal(API_SCHEMAS[api])})",
            "request, response = REQUEST, RESPONSE",
            *_llm(),
        ]
    if event["kind"] == "mark":
        return [
            'mark = extractors.resolve_mark_extractor(RESPONSE["data_schema"]).extract_role_and_content(',
            '    RESPONSE["data"]',
            ")",
            'return {"mark": None if mark is None else list(mark)}',
        ]
    if event.get("category") == "tool":
        return [
            'extractor = extractors.resolve_tool_extractor(RESPONSE["data_schema"])',
            'return {"tool_result": extractor.extract_tool_result(RESPONSE["data"])}',
        ]
    side = "RESPONSE" if event is response else "REQUEST"
    data = {
        name: f'{name.upper()}["data"]' if is_event(value) else "None"
        for name, value in (("request", request), ("response", response))
    }
    return [
        f'extractor = extractors.resolve_llm_extractor({side}["data_schema"])',
        f"request = {data['request']}",
        f"response = {data['response']}",
        *_llm(),
    ]


def _llm() -> list[str]:
    return [
        "return {",
        '    "input_messages": extractor.extract_input_messages(request),',
        '    "output_text": extractor.extract_output_text(response),',
        '    "tool_calls": extractor.extract_tool_calls(response),',
        "}",
    ]


def nat(api: str, request: Any, response: Any) -> Call:
    """NeMo Agent Toolkit's ``nat.atof.extractors``, its Anthropic and Gemini built-ins installed as a
    converter installs them at start-up (``wireconf.adapters.nat``)."""
    prelude = (
        "from nat.atof import extractors\n\n"
        "extractors.register_anthropic_messages_v1()\n"
        "extractors.register_gemini_generate_content_v1()\n\n"
        f"REQUEST = {literal(request)}\n\nRESPONSE = {literal(response)}"
    )
    return Call(pinned("nvidia-nat-atif"), prelude, "\n".join(_route(request, response, api)))


EXTRACT_TEMPLATES: dict[str, ExtractTemplate] = {"nat": nat}
"""The runtimes whose extractors a reproduction can call, by the adapter's name."""
