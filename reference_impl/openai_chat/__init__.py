"""OpenAI Chat Completions: §7.1 (request) and §8.1 / §8.6 (processing)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_impl.openai_chat.processing import process_chat
from reference_impl.openai_chat.request import build_chat_args
from reference_impl.openai_chat.streaming import process_stream
from reference_impl.tracing.spans import process_span

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    ("wire", "openai.chat"): build_chat_args,
    ("process", "openai.chat"): process_span(process_chat),
    ("stream", "openai.chat"): process_stream,
}
