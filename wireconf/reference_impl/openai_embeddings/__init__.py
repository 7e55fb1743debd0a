"""OpenAI Embeddings: §7.2 (request) and §8.2 (processing).

There is no ``stream`` function: the embeddings endpoint has no streaming mode (project decision
7.2/no-stream), so the reference declares no ``stream:openai.embeddings`` capability.
"""

from __future__ import annotations

from wireconf.reference_impl.api_parts import ApiParts
from wireconf.reference_impl.openai_embeddings.processing import process_embedding
from wireconf.reference_impl.openai_embeddings.request import build_embedding_args
from wireconf.reference_impl.sending import sdk_method
from wireconf.reference_impl.tracing import response_attributes
from wireconf.reference_impl.tracing.spans import process_span

API = ApiParts(
    name="openai.embeddings",
    wire=build_embedding_args,
    process=process_span(process_embedding),
    send=sdk_method("embeddings.create"),
    operation="embeddings",
    sent_options=(),  # §7.2 sends no options
    response_attributes=response_attributes.embeddings,
)
