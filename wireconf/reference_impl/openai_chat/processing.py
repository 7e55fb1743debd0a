"""§8.1 chat completion processing (a ``ChatCompletion`` → text, parsed output or ToolCalls)."""

from __future__ import annotations

import json
from typing import Any

from wireconf.reference_impl.sdk_objects import from_mapping
from wireconf.reference_impl.tool_call import ToolCall


def parse_structured(agent: dict[str, Any], content: str) -> Any:
    """§7.7 response phase: JSON-parse when outputs are declared, the raw string when parsing fails."""
    if agent.get("outputs") and content:
        try:
            return json.loads(content)
        except ValueError:
            return content
    return content


def _function(call: object) -> tuple[str, str]:
    """A tool call's ``function.name`` and ``function.arguments``, which §8.1 reads. A custom tool call
    (``type: custom``, free-form input) has no function: an error saying so, not an AttributeError."""
    function = getattr(call, "function", None)
    if function is None:
        raise ValueError(
            f"a tool call of type {getattr(call, 'type', None)!r} has no function; §8.1 makes a ToolCall "
            "of a function call's name and arguments"
        )
    return function.name, function.arguments


def process_chat(agent: dict[str, Any], response: object) -> Any:
    # imported at the first call: the SDK's types take seconds to import (the exec helper's hello waits)
    from openai.types.chat import ChatCompletion

    response = from_mapping(ChatCompletion, response)  # decision 8/plain-mapping-response
    message = response.choices[0].message
    if message.tool_calls:
        return [ToolCall(tc.id, *_function(tc)) for tc in message.tool_calls]
    content = message.content
    if not content and getattr(message, "refusal", None):
        content = message.refusal  # rule 8.1/refusal-text: Prompty's vector chat_refusal
    return parse_structured(agent, content or "")
