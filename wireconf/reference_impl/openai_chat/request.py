"""§7.1.7 full chat request building."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.api_type import check_api_type
from wireconf.reference_impl.openai_chat.messages import message_to_wire
from wireconf.reference_impl.options import build_options
from wireconf.reference_impl.schema import output_schema_to_wire
from wireconf.reference_impl.tools import tools_to_wire


def build_chat_args(agent: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    model = agent["model"]
    check_api_type(model)
    args: dict[str, Any] = {
        "model": model["id"],
        "messages": [message_to_wire(m) for m in messages],
        **build_options(model.get("options")),
    }
    tools = tools_to_wire(agent.get("tools"), None)
    if tools:
        args["tools"] = tools
    response_format = output_schema_to_wire(agent.get("outputs"))
    if response_format:
        args["response_format"] = response_format
    return args
