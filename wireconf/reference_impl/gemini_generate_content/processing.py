"""§8.8 Gemini processing: a ``GenerateContentResponse`` → text, parsed output or ToolCalls."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.gemini_generate_content.candidates import (
    is_answer_text,
    parts_of,
    raise_if_blocked,
    raise_prompt_blocked,
    to_tool_call,
)
from wireconf.reference_impl.openai_chat.processing import parse_structured
from wireconf.reference_impl.sdk_objects import from_mapping


def process_generate_content(agent: dict[str, Any], response: object) -> Any:
    # imported at the first call: the SDK's types take seconds to import (the exec helper's hello waits)
    from google.genai.types import GenerateContentResponse

    response = from_mapping(GenerateContentResponse, response)  # decision 8/plain-mapping-response
    candidates = response.candidates or []
    if not candidates:
        raise_prompt_blocked(response)
        raise ValueError("Empty Gemini response: no candidates")  # 8.8/no-candidates-raises
    candidate = candidates[0]
    raise_if_blocked(candidate)
    parts = parts_of(candidate)
    calls = [part.function_call for part in parts if part.function_call is not None]
    if calls:
        return [to_tool_call(call, position) for position, call in enumerate(calls)]
    text = "".join(part.text for part in parts if is_answer_text(part))
    return parse_structured(agent, text)
