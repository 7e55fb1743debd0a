"""The response converter of seed 004 (convert): responses and streams → normalised messages.

Supports ``openai.chat``: the document converts LiteLLM responses, which are OpenAI chat completions
whatever the provider (docs/seeds.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wireconf.reference_impl.response_converter.openai_chat import convert_response, convert_stream


def convert_openai_chat(response: Any, stream: bool) -> list[dict[str, Any]]:
    return convert_stream(response) if stream else [convert_response(response)]


FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {("convert", "openai.chat"): convert_openai_chat}
