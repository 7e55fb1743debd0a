"""§8.4 Responses API processing (a ``Response`` → text, parsed output or ToolCalls)."""

from __future__ import annotations

import json
from typing import Any

from reference_impl.tool_call import ToolCall


def refusal_text(response: Any) -> str:
    """The refusal parts of the output's messages, joined as ``output_text`` joins text parts."""
    return "".join(
        part.refusal or ""
        for item in response.output
        if item.type == "message"
        for part in item.content
        if part.type == "refusal"
    )


def parse_output(agent: dict[str, Any], output_text: str) -> Any:
    """Structured output (§7.7 response phase): JSON-parse when outputs are declared, else the text."""
    if agent.get("outputs") and output_text:
        try:
            return json.loads(output_text)
        except ValueError:
            return output_text
    return output_text


def process_responses(agent: dict[str, Any], response: Any) -> Any:
    if response.error:  # status "incomplete" is no error (project decision 8.4/incomplete-not-error)
        raise ValueError(response.error.message)
    function_calls = [item for item in response.output if item.type == "function_call"]
    if function_calls:
        return [ToolCall(fc.call_id, fc.name, fc.arguments) for fc in function_calls]
    refusal = refusal_text(response)
    if refusal:  # project decision 8.4/refusal-raises, as 8.1/refusal-raises and §8.6 do
        raise ValueError(f"Model refused: {refusal}")
    return parse_output(agent, response.output_text)
