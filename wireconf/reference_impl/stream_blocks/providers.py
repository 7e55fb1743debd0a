"""Provider stream chunks (official SDK objects) → stream-processor operations."""

from __future__ import annotations

import json
from typing import Any

from wireconf.reference_impl.stream_blocks.processor import Op, StreamProcessor

ANTHROPIC_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}
GEMINI_FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
}


def openai_chat_ops(chunk: Any, processor: StreamProcessor) -> list[Op]:
    ops: list[Op] = []
    for choice in chunk.choices or []:
        if choice.index != 0:
            continue
        delta = choice.delta
        if delta is not None:
            ops.append(("text", None, delta.content))
            for tc in delta.tool_calls or []:
                function = tc.function
                name = function.name if function is not None else None
                fragment = function.arguments if function is not None else None
                if ("openai", tc.index) in processor._by_key:
                    ops.append(("args", ("openai", tc.index), fragment))
                else:
                    ops.append(("tool_start", ("openai", tc.index), tc.id, name, fragment))
        if choice.finish_reason:
            ops.append(("finish", choice.finish_reason))
    return ops


def anthropic_ops(event: Any, processor: StreamProcessor) -> list[Op]:
    kind = event.type
    if kind == "content_block_start":
        block = event.content_block
        if block.type == "text":
            return [("text", ("anthropic", event.index), block.text)]
        if block.type == "tool_use":
            arguments = json.dumps(block.input) if block.input else ""
            return [("tool_start", ("anthropic", event.index), block.id, block.name, arguments)]
        return []  # thinking, server tools and their results are not blocks a policy judges
    if kind == "content_block_delta":
        delta = event.delta
        if delta.type == "text_delta":
            return [("text", ("anthropic", event.index), delta.text)]
        if delta.type == "input_json_delta":
            return [("args", ("anthropic", event.index), delta.partial_json)]
        return []
    if kind == "content_block_stop":
        return [("stop", ("anthropic", event.index))]
    if kind == "message_delta" and event.delta.stop_reason:
        reason = event.delta.stop_reason
        return [("finish", ANTHROPIC_FINISH.get(reason, reason))]
    return []


def gemini_ops(chunk: Any, processor: StreamProcessor) -> list[Op]:
    ops: list[Op] = []
    candidate = chunk.candidates[0] if chunk.candidates else None
    if candidate is None:
        return ops
    parts = candidate.content.parts if candidate.content is not None else None
    for part in parts or []:
        if part.text is not None and not part.thought:
            ops.append(("text", None, part.text))
        call = part.function_call
        if call is not None:
            key = ("gemini", processor._tool_calls + sum(1 for op in ops if op[0] == "tool_start"))
            ops.append(("tool_start", key, call.id, call.name, json.dumps(call.args or {})))
    if candidate.finish_reason is not None:
        name = getattr(candidate.finish_reason, "value", str(candidate.finish_reason))
        has_calls = any(b.kind == "tool_call" for b in processor.state.blocks) or any(
            op[0] == "tool_start" for op in ops
        )
        reason = "tool_calls" if name == "STOP" and has_calls else GEMINI_FINISH.get(name, name.lower())
        ops.append(("finish", reason))
    return ops
