"""Anthropic Messages: §7.5 (request) and §8.5 (processing, including its SSE stream)."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.anthropic_messages.options import ANTHROPIC, max_tokens
from wireconf.reference_impl.anthropic_messages.processing import process_anthropic
from wireconf.reference_impl.anthropic_messages.request import build_anthropic_args
from wireconf.reference_impl.anthropic_messages.streaming import process_stream
from wireconf.reference_impl.api_parts import ApiParts
from wireconf.reference_impl.sending import sdk_method
from wireconf.reference_impl.tracing import response_attributes
from wireconf.reference_impl.tracing.spans import process_span


def traced_max_tokens(options: dict[str, Any]) -> dict[str, Any]:
    """max_tokens is always sent (§7.5), so the span always names it, defaulted or not."""
    return {"gen_ai.request.max_tokens": max_tokens(options)}


API = ApiParts(
    name="anthropic.messages",
    wire=build_anthropic_args,
    process=process_span(process_anthropic),
    stream=process_stream,
    send=sdk_method("messages.create"),
    operation="chat",
    sent_options=tuple(ANTHROPIC),  # max_tokens is always sent: always_traced
    response_attributes=response_attributes.anthropic,
    stream_event=response_attributes.anthropic_event,
    always_traced=traced_max_tokens,
)
