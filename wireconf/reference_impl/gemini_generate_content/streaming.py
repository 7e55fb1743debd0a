"""§8.9 Gemini streaming: the SDK's iterator of ``GenerateContentResponse`` chunks (``alt=sse``).

Text is yielded as each chunk arrives; function calls arrive whole, one per part, and are yielded as
ToolCalls after the stream is exhausted, as §8.6 does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from wireconf.reference_impl.gemini_generate_content.candidates import (
    is_answer_text,
    parts_of,
    raise_if_blocked,
    raise_prompt_blocked,
    to_tool_call,
)


def _first_candidate(chunk: Any) -> Any:
    """The candidate with index 0; proto3 JSON omits a zero index, so a missing index is 0
    (8.9/first-candidate-only)."""
    for candidate in getattr(chunk, "candidates", None) or []:
        if not candidate.index:
            return candidate
    return None


def process_stream(agent: dict[str, Any], stream: Iterable[Any]) -> Iterator[Any]:
    calls: list[Any] = []
    for chunk in stream:
        candidate = _first_candidate(chunk)
        if candidate is None:
            raise_prompt_blocked(chunk)
            continue
        raise_if_blocked(candidate)
        for part in parts_of(candidate):
            if part.function_call is not None:
                calls.append(part.function_call)
            elif is_answer_text(part):
                yield part.text
    for position, call in enumerate(calls):
        yield to_tool_call(call, position)
