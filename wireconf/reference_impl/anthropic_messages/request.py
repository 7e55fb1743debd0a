"""§7.5 build_anthropic_args: the Anthropic Messages request body."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.anthropic_messages.messages import convert_messages
from wireconf.reference_impl.anthropic_messages.options import anthropic_options, max_tokens
from wireconf.reference_impl.schema import closed_output_schema, schema_to_wire
from wireconf.reference_impl.tools import strip_bindings


def anthropic_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """``{name, description, input_schema}``; a null description is omitted and ``strict`` is not sent.
    Bound parameters are stripped as for OpenAI (§7.1.3's reason holds for every provider: project
    decision 7.5/tool-bindings-stripped)."""
    input_schema = schema_to_wire(tool.get("parameters"))
    strip_bindings(input_schema, tool.get("bindings") or [])
    wire: dict[str, Any] = {"name": tool.get("name")}
    if tool.get("description") is not None:
        wire["description"] = tool["description"]
    wire["input_schema"] = input_schema
    return wire


def build_anthropic_args(agent: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    model = agent["model"]
    options = model.get("options") or {}
    system, wire_messages = convert_messages(messages)
    args: dict[str, Any] = {
        "model": model["id"],
        "messages": wire_messages,
        "max_tokens": max_tokens(options),
    }
    if system:
        args["system"] = system
    for key, value in anthropic_options(options).items():
        if key not in args:  # additionalProperties never replace what the request already holds
            args[key] = value
    tools = [anthropic_tool(tool) for tool in agent.get("tools") or [] if tool.get("kind") == "function"]
    if tools:
        args["tools"] = tools
    if agent.get("outputs"):
        args["output_config"] = output_config(agent["outputs"])
    return args


def output_config(outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """§7.7's request phase on Anthropic (project decision 7.5/outputs-as-output-config): the outputs
    as a JSON schema in ``output_config.format``, the structured-output parameter both of the spec
    authors' runtimes send."""
    return {"format": {"type": "json_schema", "schema": closed_output_schema(outputs)}}
