"""OpenAI Images: §7.3 (request), §8.3 (processing) and image generation streams (project decision)."""

from __future__ import annotations

from wireconf.reference_impl.api_parts import ApiParts
from wireconf.reference_impl.openai_images.processing import process_image
from wireconf.reference_impl.openai_images.request import build_image_args
from wireconf.reference_impl.openai_images.streaming import process_image_stream
from wireconf.reference_impl.options import OPENAI_CHAT
from wireconf.reference_impl.sending import sdk_method
from wireconf.reference_impl.tracing import response_attributes
from wireconf.reference_impl.tracing.spans import process_span

API = ApiParts(
    name="openai.images",
    wire=build_image_args,
    process=process_span(process_image),
    stream=process_image_stream,
    send=sdk_method("images.generate"),
    operation="generate_content",
    sent_options=tuple(OPENAI_CHAT),  # §7.3 passes build_options through
    response_attributes=response_attributes.images,
    stream_event=response_attributes.images_event,
)
