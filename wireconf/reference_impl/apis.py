"""The provider APIs the reference implements: the one list of their packages.

Each package holds its ``API`` record (``wireconf.reference_impl.api_parts``); the adapter's wire, process and
stream functions, ``execute`` (e2e) and the spans' attributes (trace) are derived from this table.
"""

from __future__ import annotations

from wireconf.reference_impl import (
    anthropic_messages,
    gemini_generate_content,
    openai_chat,
    openai_embeddings,
    openai_images,
    openai_responses,
)
from wireconf.reference_impl.api_parts import ApiParts

APIS: dict[str, ApiParts] = {
    part.API.name: part.API
    for part in (
        openai_chat,
        openai_embeddings,
        openai_images,
        openai_responses,
        anthropic_messages,
        gemini_generate_content,
    )
}
