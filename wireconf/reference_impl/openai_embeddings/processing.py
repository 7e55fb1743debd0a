"""§8.2 embedding processing (a ``CreateEmbeddingResponse`` → one vector or a list of vectors)."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.sdk_objects import from_mapping


def process_embedding(agent: dict[str, Any], response: object) -> Any:
    # imported at the first call: the SDK's types take seconds to import (the exec helper's hello waits)
    from openai.types import CreateEmbeddingResponse

    response = from_mapping(CreateEmbeddingResponse, response)  # decision 8/plain-mapping-response
    data = response.data or []
    if len(data) == 0:
        raise ValueError("Empty embedding response")
    if len(data) == 1:
        return data[0].embedding
    return [item.embedding for item in data]
