"""§8.4 Responses API processing (a ``Response`` → text, parsed output or ToolCalls)."""

from __future__ import annotations

import json
from typing import Any

from wireconf.reference_impl.sdk_objects import from_mapping
from wireconf.reference_impl.tool_call import ToolCall


def parse_output(agent: dict[str, Any], output_text: str) -> Any:
    """Structured output (§7.7 response phase): JSON-parse when outputs are declared, else the text."""
    if agent.get("outputs") and output_text:
        try:
            return json.loads(output_text)
        except ValueError:
            return output_text
    return output_text


def process_responses(agent: dict[str, Any], response: object) -> Any:
    # imported at the first call: the SDK's types take seconds to import (the exec helper's hello waits)
    from openai.types.responses import Response

    response = from_mapping(Response, response)  # decision 8/plain-mapping-response
    if response.error:  # status "incomplete" is no error (project decision 8.4/incomplete-not-error)
        raise ValueError(response.error.message)
    function_calls = [item for item in response.output if item.type == "function_call"]
    if function_calls:
        return [ToolCall(fc.call_id, fc.name, fc.arguments) for fc in function_calls]
    # output_text holds no refusal part: a refused response gives "" (rule 8.4/refusal-output-text)
    return parse_output(agent, response.output_text)
