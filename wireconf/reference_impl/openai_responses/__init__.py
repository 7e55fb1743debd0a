"""OpenAI Responses API: §7.4 (request), §8.4 (processing) and its stream events (project decisions)."""

from __future__ import annotations

from wireconf.reference_impl.api_parts import ApiParts
from wireconf.reference_impl.openai_responses.processing import process_responses
from wireconf.reference_impl.openai_responses.request import RESPONSES_OPTIONS, build_responses_args
from wireconf.reference_impl.openai_responses.streaming import process_responses_stream
from wireconf.reference_impl.sending import sdk_method
from wireconf.reference_impl.tracing import response_attributes
from wireconf.reference_impl.tracing.spans import process_span

API = ApiParts(
    name="openai.responses",
    wire=build_responses_args,
    process=process_span(process_responses),
    stream=process_responses_stream,
    send=sdk_method("responses.create"),
    operation="chat",
    sent_options=tuple(RESPONSES_OPTIONS),
    response_attributes=response_attributes.responses,
    stream_event=response_attributes.responses_event,
)
