"""OpenAI Embeddings: §7.2 (request) and §8.2 (processing).

There is no ``stream`` function: the embeddings endpoint has no streaming mode (project decision
7.2/no-stream), so the reference declares no ``stream:openai.embeddings`` capability.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_impl.openai_embeddings.processing import process_embedding
from reference_impl.openai_embeddings.request import build_embedding_args
from reference_impl.tracing.spans import process_span

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    ("wire", "openai.embeddings"): build_embedding_args,
    ("process", "openai.embeddings"): process_span(process_embedding),
}
