"""§8.5 Anthropic processing (an ``anthropic.types.Message`` → text, parsed output or ToolCalls)."""

from __future__ import annotations

import json
from typing import Any

from reference_impl.openai_chat.processing import parse_structured
from reference_impl.tool_call import ToolCall


def serialize_input(tool_input: Any) -> str:
    """§8.5's ``json_serialize(b.input)``: any JSON text of the input conforms; this one keeps the
    key order and non-ASCII text as sent."""
    return json.dumps(tool_input, ensure_ascii=False)


def refusal_error(text: str) -> ValueError:
    """Project decision 8.5/refusal-raises: one behaviour for refusals, as §8.6 has for OpenAI."""
    return ValueError("Model refused (stop_reason: refusal)" + (f": {text}" if text else ""))


def process_anthropic(agent: dict[str, Any], response: Any) -> Any:
    tool_blocks = [block for block in response.content if block.type == "tool_use"]
    if tool_blocks:
        return [ToolCall(block.id, block.name, serialize_input(block.input)) for block in tool_blocks]
    text_blocks = [block for block in response.content if block.type == "text"]
    content = "".join(block.text for block in text_blocks)  # project decision 8.5/several-text-blocks-joined
    if response.stop_reason == "refusal":
        raise refusal_error(content)
    return parse_structured(agent, content)
