"""The ``apiType`` an agent must carry for each request format (§7.2, §7.3, §7.4)."""

from __future__ import annotations

from typing import Any


def require_api_type(agent: dict[str, Any], api_type: str, what: str) -> None:
    """Refuse an agent whose ``model.apiType`` names another format; an absent apiType is accepted.

    The spec selects the request format by ``apiType`` ("When agent.model.apiType is ..."); building
    one format for an agent declared as another would send a request the caller did not ask for.
    """
    given = (agent.get("model") or {}).get("apiType")
    if given is not None and given != api_type:
        raise ValueError(f"agent.model.apiType is {given!r}: {what} are built for apiType {api_type!r}")
