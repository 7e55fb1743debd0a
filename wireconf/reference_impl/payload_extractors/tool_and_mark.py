"""The default tool-result and mark extractors (seed 003)."""

from __future__ import annotations

import json
from typing import Any

_WRAPPER_KEYS = ("result", "output")
LIFTED_ROLES = frozenset({"user", "system", "agent"})


def compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class GenericToolResultExtractor:
    """``{result: X}`` / ``{output: X}`` unwrapped; anything else serialised whole as compact JSON."""

    def extract_tool_result(self, data: Any) -> str | None:
        if data is None:
            return None
        if isinstance(data, str):
            return data
        if isinstance(data, dict) and len(data) == 1 and next(iter(data)) in _WRAPPER_KEYS:
            inner = next(iter(data.values()))
            return inner if isinstance(inner, str) else compact_json(inner)
        return compact_json(data)


class NatRoleMarkExtractor:
    """A mark whose ``data.role`` is user, system or agent lifts to a step with that source."""

    def extract_role_and_content(self, data: Any) -> tuple[str, Any] | None:
        if not isinstance(data, dict) or data.get("role") not in LIFTED_ROLES:
            return None
        for key in ("content", "message"):
            if data.get(key) is not None:
                return data["role"], data[key]
        return data["role"], ""
