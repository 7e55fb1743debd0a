"""``agent.model.apiType``: which request a model takes (§7.2-§7.4 name the values besides chat).

An unknown value is an error (project decision 7/unknown-api-type-raises) rather than a fallback to
chat: building a Chat Completions request for an agent that asked for another API would send the
provider something its author never wrote. For the same reason a format's builder refuses an agent
declared for another format (``require_api_type``).
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


def require_api_type(agent: dict[str, Any], api_type: str, what: str) -> None:
    """Refuse an agent whose ``model.apiType`` names another format; an absent apiType is accepted.

    The spec selects the request format by ``apiType`` ("When agent.model.apiType is ..."); building
    one format for an agent declared as another would send a request the caller did not ask for.
    """
    given = (agent.get("model") or {}).get("apiType")
    if given is not None and given != api_type:
        raise ValueError(f"agent.model.apiType is {given!r}: {what} are built for apiType {api_type!r}")
