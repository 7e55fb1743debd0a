"""§8.6 streaming processing of ``ChatCompletionChunk``s: text deltas as they come, tool calls at the end."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from wireconf.reference_impl.tool_call import ToolCall


def _first_choice(chunk: Any) -> Any:
    """The choice with index 0 (project decision 8.6/first-choice-only): with n > 1 the chunks of the
    other candidates interleave and must not be mixed into the answer. A choice without an index is
    the first one (a stream of one candidate needs none)."""
    for choice in getattr(chunk, "choices", None) or []:
        if choice.index in (0, None):
            return choice
    return None


def process_stream(agent: dict[str, Any], stream: Iterable[Any]) -> Iterator[Any]:
    calls: dict[int, dict[str, Any]] = {}
    for chunk in stream:
        choice = _first_choice(chunk)
        delta = choice.delta if choice is not None else None
        if delta is None:
            continue
        if delta.content:
            yield delta.content
        for tc in delta.tool_calls or []:
            if tc.index not in calls:
                calls[tc.index] = {
                    "id": tc.id,
                    "name": tc.function.name if tc.function else None,
                    "arguments": "",
                }
            if tc.function is not None and tc.function.arguments:
                calls[tc.index]["arguments"] += tc.function.arguments
        if getattr(delta, "refusal", None):
            raise ValueError("Model refused: " + delta.refusal)
    for index in sorted(calls):
        yield ToolCall(**calls[index])
