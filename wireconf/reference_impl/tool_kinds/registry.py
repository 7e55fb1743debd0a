"""Custom tools (§7.1.3's default arm, kind ``*``): the function signature comes from a tool registry.

The registry maps a tool name to its entry: ``{name, parameters}``, ``parameters`` being the JSON Schema
of the function's parameters, sent as registered. The harness fills it before each wire case
(``ReferenceAdapter.set_tool_registry``); a runtime has its own registry, filled by its adapter.
"""

from __future__ import annotations

import copy
from typing import Any

from wireconf.reference_impl.tool_kinds import Signature, tool_label

REGISTRY: dict[str, dict[str, Any]] = {}


def set_registry(entries: list[dict[str, Any]]) -> None:
    """Replace the registry's entries (the next projections see exactly these)."""
    REGISTRY.clear()
    REGISTRY.update({entry["name"]: entry for entry in entries})


def signatures(tool: dict[str, Any]) -> list[Signature]:
    name = tool.get("name")
    handler = REGISTRY.get(name) if isinstance(name, str) else None  # a list there is unhashable
    if handler is None:
        raise ValueError(
            f"{tool_label(tool)}: {tool.get('kind')!r} is not a built-in tool kind (function, prompty, mcp, "
            f"openapi) and the tool registry has no entry named {tool.get('name')!r}"
        )
    # a copy, so that bindings and strict mode never edit the registered schema
    return [Signature(tool.get("name"), tool.get("description"), copy.deepcopy(handler["parameters"]))]
