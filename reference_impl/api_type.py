"""``agent.model.apiType``: which request a model takes (§7.2-§7.4 name the values besides chat).

An unknown value is an error (project decision 7/unknown-api-type-raises) rather than a fallback to
chat: building a Chat Completions request for an agent that asked for another API would send the
provider something its author never wrote.
"""

from __future__ import annotations

from typing import Any

API_TYPES: tuple[str, ...] = ("chat", "responses", "embedding", "image")
"""``chat`` (§7.1, the default when absent), ``responses`` (§7.4), ``embedding`` (§7.2), ``image`` (§7.3)."""


def check_api_type(model: dict[str, Any]) -> None:
    """Raise ``ValueError`` naming the model's ``apiType`` when it is not one the spec defines."""
    api_type = model.get("apiType")
    if api_type is not None and api_type not in API_TYPES:
        raise ValueError(
            f"model {model.get('id')!r} has apiType {api_type!r}, which is not one of {', '.join(API_TYPES)}"
        )
