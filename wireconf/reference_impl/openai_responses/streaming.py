"""Responses API streams (project decisions 8.4/stream-*, following §8.6's shape).

Text deltas are yielded as their events arrive; function calls are accumulated per output item (call
id and name from ``response.output_item.added``, arguments from ``response.function_call_arguments.delta``
fragments) and yielded as ToolCalls once the stream is exhausted; refusals, ``response.failed`` and
``error`` events raise. Every other event (lifecycle, ``*.done`` summaries, reasoning) yields nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from wireconf.reference_impl.tool_call import ToolCall


@dataclass
class PendingCall:
    """A function call being streamed: its item's place in the output, call id, name, arguments so far."""

    index: int
    call_id: str
    name: str
    arguments: str = ""


def _failure_message(event: Any) -> str:
    error = getattr(event.response, "error", None)
    return getattr(error, "message", None) or "Response failed"


def process_responses_stream(agent: dict[str, Any], stream: Iterable[Any]) -> Iterator[Any]:
    calls: dict[str, PendingCall] = {}  # by output item id
    for event in stream:
        kind = getattr(event, "type", None)
        if kind == "response.output_text.delta":
            if event.delta:
                yield event.delta
        elif kind == "response.output_item.added" and event.item.type == "function_call":
            calls[event.item.id] = PendingCall(event.output_index, event.item.call_id, event.item.name)
        elif kind == "response.function_call_arguments.delta":
            if event.item_id in calls and event.delta:
                calls[event.item_id].arguments += event.delta
        elif kind == "response.refusal.delta":
            if event.delta:
                raise ValueError("Model refused: " + event.delta)
        elif kind == "response.failed":
            raise ValueError(_failure_message(event))
        elif kind == "error":
            raise ValueError(event.message)
    for call in sorted(calls.values(), key=lambda c: c.index):
        yield ToolCall(call.call_id, call.name, call.arguments)
