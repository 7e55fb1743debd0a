"""What processing and streaming share: reading a candidate, blocked answers, function calls → ToolCalls."""

from __future__ import annotations

import json
from typing import Any

from wireconf.reference_impl.tool_call import ToolCall

BLOCKED_FINISH_REASONS = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
    }
)
"""Finish reasons by which Gemini withholds the answer (a content filter, not the model's choice)."""


def _name(value: Any) -> str | None:
    """An SDK enum member, or the plain string the SDK keeps for a value it does not know."""
    name: str | None = getattr(value, "value", value)
    return name


def parts_of(candidate: Any) -> list[Any]:
    content = getattr(candidate, "content", None)
    return list(getattr(content, "parts", None) or [])


def raise_if_blocked(candidate: Any) -> None:
    """A filtered answer is not an empty answer (8.8/blocked-finish-raises)."""
    reason = _name(getattr(candidate, "finish_reason", None))
    if reason in BLOCKED_FINISH_REASONS:
        raise ValueError(f"Response blocked: {reason}")


def raise_prompt_blocked(response: Any) -> None:
    """A response without candidates: the prompt was blocked, or there is nothing to process."""
    feedback = getattr(response, "prompt_feedback", None)
    reason = _name(getattr(feedback, "block_reason", None))
    if reason:
        raise ValueError(f"Prompt blocked: {reason}")


def is_answer_text(part: Any) -> bool:
    """Non-empty text that is not a thought summary (8.8/thought-parts-excluded)."""
    return bool(part.text) and not part.thought


def synthesised_id(position: int) -> str:
    """The id of a function call the API sent without one (8.8/synthesised-id)."""
    return f"call_{position}"


def to_tool_call(function_call: Any, position: int) -> ToolCall:
    """``position``: the call's 0-based place among the response's function calls."""
    arguments = json.dumps(function_call.args if function_call.args is not None else {})
    return ToolCall(function_call.id or synthesised_id(position), function_call.name, arguments)
