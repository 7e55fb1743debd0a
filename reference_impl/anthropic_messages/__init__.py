"""Anthropic Messages: §7.5 (request) and §8.5 (processing, including its SSE stream)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_impl.anthropic_messages.processing import process_anthropic
from reference_impl.anthropic_messages.request import build_anthropic_args
from reference_impl.anthropic_messages.streaming import process_stream
from reference_impl.tracing.spans import process_span

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    ("wire", "anthropic.messages"): build_anthropic_args,
    ("process", "anthropic.messages"): process_span(process_anthropic),
    ("stream", "anthropic.messages"): process_stream,
}
