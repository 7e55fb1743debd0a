"""LiteLLM / OpenAI-shaped chat completions and their streams → normalised messages (seed 004)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wireconf.reference_impl.response_converter.message import content_blocks, final_message, usage_of


def _reasoning(obj: Any) -> str | None:
    """``reasoning_content`` (LiteLLM's field for reasoning models); the OpenAI SDK keeps it as an extra."""
    value = getattr(obj, "reasoning_content", None)
    return value if isinstance(value, str) else None


def convert_response(response: Any) -> dict[str, Any]:
    choice = response.choices[0] if response.choices else None
    message = choice.message if choice is not None else None
    calls = [
        {"id": tc.id, "name": tc.function.name, "arguments": tc.function.arguments}
        for tc in (message.tool_calls or [] if message is not None else [])
        if getattr(tc, "function", None) is not None
    ]
    metadata = {
        "model": response.model,
        "object": response.object,
        "finish_reason": choice.finish_reason if choice is not None else None,
    }
    return final_message(
        _reasoning(message) if message is not None else None,
        message.content if message is not None else None,
        _unique_ids(calls),
        usage_of(response.usage),
        metadata,
    )


def _unique_ids(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each tool call id once, first occurrence kept."""
    seen: set[Any] = set()
    out = []
    for call in calls:
        if call["id"] is not None and call["id"] in seen:
            continue
        seen.add(call["id"])
        out.append(call)
    return out


def convert_stream(chunks: Iterable[Any]) -> list[dict[str, Any]]:
    """One partial message (``delta: true``) per chunk that brings text or reasoning, then one
    consolidated message (``delta: false``) once the stream is exhausted."""
    messages: list[dict[str, Any]] = []
    text, reasoning = "", ""
    calls: dict[int, dict[str, Any]] = {}
    metadata: dict[str, Any] = {"model": None, "object": None, "finish_reason": None}
    usage = None
    for chunk in chunks:
        metadata["model"] = metadata["model"] or chunk.model
        metadata["object"] = metadata["object"] or chunk.object
        if chunk.usage is not None:
            usage = usage_of(chunk.usage)
        for choice in chunk.choices or []:
            if choice.index != 0:
                continue
            delta = choice.delta
            if choice.finish_reason:
                metadata["finish_reason"] = choice.finish_reason
            if delta is None:
                continue
            piece_reasoning, piece_text = _reasoning(delta) or "", delta.content or ""
            for tc in delta.tool_calls or []:
                call = calls.setdefault(tc.index, {"id": None, "name": "", "arguments": ""})
                call["id"] = call["id"] or tc.id
                if tc.function is not None:
                    call["name"] = call["name"] or tc.function.name or ""
                    call["arguments"] += tc.function.arguments or ""
            if piece_text or piece_reasoning:
                reasoning += piece_reasoning
                text += piece_text
                partial = content_blocks(piece_reasoning, piece_text, [])
                messages.append({"role": "assistant", "delta": True, "content": partial})
    ordered = [calls[i] for i in sorted(calls)]
    messages.append(final_message(reasoning, text, _unique_ids(ordered), usage, metadata))
    return messages
