"""§7.4 / §7.4.1 Responses API request building."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.api_type import require_api_type
from wireconf.reference_impl.openai_responses.input_items import input_items, instructions
from wireconf.reference_impl.options import build_options
from wireconf.reference_impl.schema import output_schema_to_wire
from wireconf.reference_impl.tools import tools_to_wire

RESPONSES_OPTIONS: dict[str, str] = {
    "temperature": "temperature",
    "maxOutputTokens": "max_output_tokens",
    "topP": "top_p",
}
"""Project decision 7.4/options: the Responses API's names; the other ModelOptions fields have no
Responses parameter and are silently ignored (§7.6); additionalProperties pass through as in §7.1.5."""


def responses_tools(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """§7.1.3's projection (bindings, strict), each definition flattened to the Responses shape
    ``{type: function, name, description, parameters, strict}`` (project decision 7.4.1/tools-flat)."""
    wire_tools = tools_to_wire(tools, None)
    if not wire_tools:
        return None
    return [{"type": "function", **func_def["function"]} for func_def in wire_tools]


def text_format(outputs: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    """§7.1.6's schema and flags, in the Responses API's ``text.format`` shape."""
    response_format = output_schema_to_wire(outputs)
    if response_format is None:
        return None
    return {"type": "json_schema", **response_format["json_schema"]}


def build_responses_args(agent: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    require_api_type(agent, "responses", "Responses API requests")
    model = agent["model"]
    args: dict[str, Any] = {"model": model["id"]}
    system = instructions(messages)
    if system is not None:
        args["instructions"] = system
    args["input"] = input_items(messages)
    args.update(build_options(model.get("options"), RESPONSES_OPTIONS))
    tools = responses_tools(agent.get("tools"))
    if tools:
        args["tools"] = tools
    fmt = text_format(agent.get("outputs"))
    if fmt:
        args["text"] = {"format": fmt}
    return args
