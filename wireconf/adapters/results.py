"""What an adapter of a general-purpose runtime (LangChain, LiteLLM) hands the harness: the contract's
result shapes (docs/adapters.md, "What to return"), read from the runtime's own result objects the way
that runtime's users read them. Nothing here decides what the runtime did; it only changes the form."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from wireconf.core.untyped import AdapterResult


@dataclass(frozen=True)
class ToolCall:
    """A tool call as the contract reads it: ``id``, ``name`` and ``arguments`` (a JSON string)."""

    id: AdapterResult
    name: AdapterResult
    arguments: AdapterResult


def arguments_text(arguments: AdapterResult) -> AdapterResult:
    """Arguments a runtime parsed into a dict (LangChain's ``ToolCall.args``) written back as that runtime
    writes them back itself (``json.dumps(args, ensure_ascii=False)``: langchain-core's
    ``convert_to_openai_messages``, langchain-openai's ``_lc_tool_call_to_openai_tool_call``); a string
    stays as the runtime holds it."""
    if isinstance(arguments, str) or arguments is None:
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def text_result(text: AdapterResult, agent: dict[str, Any]) -> AdapterResult:
    """The text (``""`` for none); with ``outputs``, the JSON it holds (the text when it does not parse),
    as a caller that asked for JSON reads it."""
    if text is None:
        text = ""
    if agent.get("outputs") and isinstance(text, str) and text:
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text
