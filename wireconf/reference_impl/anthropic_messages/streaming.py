"""Anthropic Messages streaming, in the shape of §8.6 (project rules 8.5/stream-*).

Text deltas are yielded as they arrive; ``input_json_delta`` fragments are accumulated per content
block index for ``tool_use`` blocks and yielded as ToolCalls after the stream is exhausted, in block
order. Thinking, signature and citation deltas, server tool blocks and event types this processor does
not know are ignored; an ``error`` event (raised by the SDK) propagates.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from wireconf.reference_impl.anthropic_messages.processing import refusal_error, serialize_input
from wireconf.reference_impl.tool_call import ToolCall


def process_stream(agent: dict[str, Any], stream: Iterable[Any]) -> Iterator[Any]:
    calls: dict[int, dict[str, Any]] = {}
    for event in stream:
        kind = getattr(event, "type", None)
        if kind == "content_block_start":
            block = event.content_block
            if block.type == "tool_use":
                calls[event.index] = {"id": block.id, "name": block.name, "input": block.input, "json": ""}
        elif kind == "content_block_delta":
            delta = event.delta
            if delta.type == "text_delta":
                if delta.text:
                    yield delta.text
            elif delta.type == "input_json_delta" and event.index in calls:
                calls[event.index]["json"] += delta.partial_json or ""  # not for server_tool_use blocks
        elif kind == "message_delta" and event.delta.stop_reason == "refusal":
            raise refusal_error()
    for index in sorted(calls):
        call = calls[index]
        arguments = call["json"] or serialize_input(call["input"] or {})
        yield ToolCall(call["id"], call["name"], arguments)
