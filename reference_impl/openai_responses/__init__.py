"""OpenAI Responses API: §7.4 (request), §8.4 (processing) and its stream events (project decisions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_impl.openai_responses.processing import process_responses
from reference_impl.openai_responses.request import build_responses_args
from reference_impl.openai_responses.streaming import process_responses_stream
from reference_impl.tracing.spans import process_span

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    ("wire", "openai.responses"): build_responses_args,
    ("process", "openai.responses"): process_span(process_responses),
    ("stream", "openai.responses"): process_responses_stream,
}
