"""OpenAI Chat Completions: §7.1 (request) and §8.1 / §8.6 (processing)."""

from __future__ import annotations

from wireconf.reference_impl.api_parts import ApiParts
from wireconf.reference_impl.openai_chat.processing import process_chat
from wireconf.reference_impl.openai_chat.request import build_chat_args
from wireconf.reference_impl.openai_chat.streaming import process_stream
from wireconf.reference_impl.options import OPENAI_CHAT
from wireconf.reference_impl.sending import sdk_method
from wireconf.reference_impl.tracing import response_attributes
from wireconf.reference_impl.tracing.spans import process_span

API = ApiParts(
    name="openai.chat",
    wire=build_chat_args,
    process=process_span(process_chat),
    stream=process_stream,
    send=sdk_method("chat.completions.create"),
    operation="chat",
    sent_options=tuple(OPENAI_CHAT),
    response_attributes=response_attributes.chat,
    stream_event=response_attributes.chat_event,
)
