"""§8.7 ToolCall: what every processor returns for a tool call."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ToolCall:
    """``arguments`` is always the JSON-encoded string, whatever the provider sent (§8.7)."""

    id: str | None
    name: str
    arguments: str
