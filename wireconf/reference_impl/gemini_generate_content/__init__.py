"""Google Gemini generateContent: the project's provider subsection (§7.8) for request, processing and
streaming. The mappings and the reasons for them: docs/providers/gemini.md; the rules: §7.9 and §8.8 /
§8.9 of cases/rules.yaml.
"""

from __future__ import annotations

from wireconf.reference_impl.api_parts import ApiParts
from wireconf.reference_impl.gemini_generate_content.processing import process_generate_content
from wireconf.reference_impl.gemini_generate_content.request import (
    GENERATION_CONFIG,
    build_generate_content_args,
)
from wireconf.reference_impl.gemini_generate_content.sending import send_generate_content
from wireconf.reference_impl.gemini_generate_content.streaming import process_stream
from wireconf.reference_impl.tracing import response_attributes
from wireconf.reference_impl.tracing.spans import process_span

API = ApiParts(
    name="gemini.generate_content",
    wire=build_generate_content_args,
    process=process_span(process_generate_content),
    stream=process_stream,
    send=send_generate_content,
    stream_by_option=True,  # 7.9.7: a stream is generate_content_stream, another URL
    operation="chat",
    sent_options=tuple(GENERATION_CONFIG),
    response_attributes=response_attributes.gemini,
    stream_event=response_attributes.gemini_event,
)
