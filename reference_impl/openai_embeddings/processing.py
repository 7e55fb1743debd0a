"""§8.2 embedding processing (a ``CreateEmbeddingResponse`` → one vector or a list of vectors)."""

from __future__ import annotations

from typing import Any


def process_embedding(agent: dict[str, Any], response: Any) -> Any:
    data = response.data or []
    if len(data) == 0:
        raise ValueError("Empty embedding response")
    if len(data) == 1:
        return data[0].embedding
    return [item.embedding for item in data]
