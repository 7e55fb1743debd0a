"""§8.5 Anthropic processing (an ``anthropic.types.Message`` → text, parsed output or ToolCalls)."""

from __future__ import annotations

import json
from typing import Any

from wireconf.reference_impl.openai_chat.processing import parse_structured
from wireconf.reference_impl.sdk_objects import from_mapping
from wireconf.reference_impl.tool_call import ToolCall


def serialize_input(tool_input: Any) -> str:
    """§8.5's ``json_serialize(b.input)``, spelt as Prompty's vector anthropic_tool_use spells it
    (rule 8.5/arguments-compact-json): compact, keys in the order sent, non-ASCII text as it is."""
    return json.dumps(tool_input, ensure_ascii=False, separators=(",", ":"))


def refusal_error() -> ValueError:
    """A streamed refusal (project decision 8.5/stream-refusal-raises, as §8.6 raises for OpenAI)."""
    return ValueError("Model refused (stop_reason: refusal)")


def process_anthropic(agent: dict[str, Any], response: object) -> Any:
    # imported at the first call: the SDK's types take seconds to import (the exec helper's hello waits)
    from anthropic.types import Message

    response = from_mapping(Message, response)  # decision 8/plain-mapping-response
    tool_blocks = [block for block in response.content if block.type == "tool_use"]
    if tool_blocks:
        return [ToolCall(block.id, block.name, serialize_input(block.input)) for block in tool_blocks]
    text_blocks = [block for block in response.content if block.type == "text"]
    content = "".join(block.text for block in text_blocks)  # rule 8.5/several-text-blocks-joined (vectors)
    return parse_structured(agent, content)  # whatever the stop_reason (rule 8.5/stop-reason-not-error)
