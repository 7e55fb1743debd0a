"""The normalised message of seed 004 as plain data: content blocks, tool calls, usage, metadata."""

from __future__ import annotations

import json
from typing import Any


def tool_call_block(call_id: str | None, name: str, arguments: str) -> dict[str, Any]:
    """A ToolCallBlock: arguments parsed to an object (kept whole under ``raw`` when not JSON)."""
    try:
        args = json.loads(arguments) if arguments else {}
    except ValueError:
        args = {"raw": arguments}
    return {"type": "tool_call", "id": call_id, "name": name, "args": args}


def content_blocks(
    reasoning: str | None, text: str | None, calls: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Reasoning, then text, then tool calls; an empty reasoning or text makes no block."""
    blocks: list[dict[str, Any]] = []
    if reasoning:
        blocks.append({"type": "reasoning", "summary": reasoning})
    if text:
        blocks.append({"type": "text", "text": text})
    blocks += [tool_call_block(c["id"], c["name"], c["arguments"]) for c in calls]
    return blocks


def usage_of(usage: Any) -> dict[str, int] | None:
    """TokenUsages: prompt / completion / total, reasoning tokens and cache reads (0 when not reported)."""
    if usage is None:
        return None
    completion_details = getattr(usage, "completion_tokens_details", None)
    prompt_details = getattr(usage, "prompt_tokens_details", None)
    return {
        "prompt_tokens": usage.prompt_tokens or 0,
        "completion_tokens": usage.completion_tokens or 0,
        "total_tokens": usage.total_tokens or 0,
        "reasoning_tokens": getattr(completion_details, "reasoning_tokens", None) or 0,
        "cache_read_input_tokens": getattr(prompt_details, "cached_tokens", None) or 0,
    }


def final_message(
    reasoning: str | None,
    text: str | None,
    calls: list[dict[str, Any]],
    usage: dict[str, int] | None,
    metadata: dict[str, Any],
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "delta": False,
        "content": content_blocks(reasoning, text, calls),
        "tool_calls": [{"id": c["id"], "name": c["name"], "arguments": c["arguments"]} for c in calls],
        "usage": usage,
        "metadata": metadata,
    }
