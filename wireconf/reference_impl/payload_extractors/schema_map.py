"""The declarative ``SchemaMap`` and the generic engine that extracts through it (seed 003)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wireconf.reference_impl.payload_extractors.paths import resolve_first

Messages = list[dict[str, Any]]
ToolCalls = list[dict[str, Any]]


@dataclass(frozen=True)
class SchemaMap:
    """Where a provider's LLM payload keeps its fields, plus hooks for what paths cannot express."""

    name: str
    version: str
    input_messages_paths: tuple[str, ...] = ()
    output_text_paths: tuple[str, ...] = ()
    output_tool_calls_paths: tuple[str, ...] = ()
    tool_call_id_paths: tuple[str, ...] = ("id",)
    tool_call_name_paths: tuple[str, ...] = ("name", "function.name")
    tool_call_args_paths: tuple[str, ...] = ("arguments", "function.arguments")
    tool_call_args_parse_json: bool = True
    role_aliases: Mapping[str, str] = field(default_factory=dict)
    normalize_input_messages: Callable[[Any], Messages] | None = None
    normalize_output_message: Callable[[Any], tuple[str, ToolCalls]] | None = None
    transform_tool_call: Callable[[dict[str, Any], int], dict[str, Any]] | None = None


def arguments_object(raw: Any, parse_json: bool) -> dict[str, Any]:
    """Tool-call arguments as the dict the protocol requires: JSON text parsed; anything that is not
    a JSON object kept whole under ``raw`` rather than dropped or passed on as a non-dict."""
    if raw is None:
        return {}
    if isinstance(raw, str) and parse_json:
        try:
            parsed = json.loads(raw)
        except ValueError:
            return {"raw": raw}
        return parsed if isinstance(parsed, dict) else {"raw": raw}
    return raw if isinstance(raw, dict) else {"raw": raw}


class SchemaMapLlmExtractor:
    """The LLM payload extractor driven by a ``SchemaMap``: hooks when set, field paths otherwise."""

    def __init__(self, schema_map: SchemaMap) -> None:
        self.schema_map = schema_map

    def extract_input_messages(self, data: Any) -> Messages:
        if not isinstance(data, dict):
            return []
        if self.schema_map.normalize_input_messages is not None:
            return self.schema_map.normalize_input_messages(data)
        found = resolve_first(data, self.schema_map.input_messages_paths)
        if not isinstance(found, list):
            return []
        return [self._aliased(m) for m in found if isinstance(m, dict)]

    def extract_output_text(self, data: Any) -> str:
        if not isinstance(data, dict):
            return ""
        if self.schema_map.normalize_output_message is not None:
            return self.schema_map.normalize_output_message(data)[0]
        found = resolve_first(data, self.schema_map.output_text_paths)
        return found if isinstance(found, str) else ""

    def extract_tool_calls(self, data: Any) -> ToolCalls:
        if not isinstance(data, dict):
            return []
        if self.schema_map.normalize_output_message is not None:
            return self.schema_map.normalize_output_message(data)[1]
        found = resolve_first(data, self.schema_map.output_tool_calls_paths)
        if not isinstance(found, list):
            return []
        calls = [raw for raw in found if isinstance(raw, dict)]
        transform = self.schema_map.transform_tool_call
        if transform is not None:
            return [transform(raw, index) for index, raw in enumerate(calls)]
        return [self._tool_call(raw) for raw in calls]

    def _aliased(self, message: dict[str, Any]) -> dict[str, Any]:
        role = message.get("role")
        if isinstance(role, str) and role in self.schema_map.role_aliases:
            return {**message, "role": self.schema_map.role_aliases[role]}
        return message

    def _tool_call(self, raw: dict[str, Any]) -> dict[str, Any]:
        m = self.schema_map
        return {
            "tool_call_id": resolve_first(raw, m.tool_call_id_paths),
            "function_name": resolve_first(raw, m.tool_call_name_paths) or "",
            "arguments": arguments_object(
                resolve_first(raw, m.tool_call_args_paths), m.tool_call_args_parse_json
            ),
        }
