"""Extractor registries keyed by ``(name, version)`` and their documented fallbacks (seed 003)."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.payload_extractors.builtin_maps import (
    ANTHROPIC_MESSAGES_V1_MAP,
    GEMINI_GENERATE_CONTENT_V1_MAP,
    OpenAiChatCompletionsLlmExtractor,
)
from wireconf.reference_impl.payload_extractors.schema_map import SchemaMapLlmExtractor
from wireconf.reference_impl.payload_extractors.tool_and_mark import (
    GenericToolResultExtractor,
    NatRoleMarkExtractor,
)

DEFAULT_LLM_EXTRACTOR = OpenAiChatCompletionsLlmExtractor()
DEFAULT_TOOL_EXTRACTOR = GenericToolResultExtractor()
DEFAULT_MARK_EXTRACTOR = NatRoleMarkExtractor()

LLM_EXTRACTOR_REGISTRY: dict[tuple[str, str], Any] = {("openai/chat-completions", "1"): DEFAULT_LLM_EXTRACTOR}
TOOL_EXTRACTOR_REGISTRY: dict[tuple[str, str], Any] = {}
MARK_EXTRACTOR_REGISTRY: dict[tuple[str, str], Any] = {}


def _key(name: Any, version: Any) -> tuple[str, str]:
    if not isinstance(name, str) or not name or not isinstance(version, str) or not version:
        raise ValueError(
            f"an extractor is registered under a non-empty name and version, got {name!r}@{version!r}"
        )
    return name, version


def register_llm_extractor(name: str, version: str, extractor: Any) -> None:
    LLM_EXTRACTOR_REGISTRY[_key(name, version)] = extractor


def register_tool_extractor(name: str, version: str, extractor: Any) -> None:
    TOOL_EXTRACTOR_REGISTRY[_key(name, version)] = extractor


def register_mark_extractor(name: str, version: str, extractor: Any) -> None:
    MARK_EXTRACTOR_REGISTRY[_key(name, version)] = extractor


def register_anthropic_messages_v1() -> None:
    """Idempotent: installs ``anthropic/messages@1``."""
    register_llm_extractor("anthropic/messages", "1", SchemaMapLlmExtractor(ANTHROPIC_MESSAGES_V1_MAP))


def register_gemini_generate_content_v1() -> None:
    """Idempotent: installs ``gemini/generate-content@1``."""
    register_llm_extractor(
        "gemini/generate-content", "1", SchemaMapLlmExtractor(GEMINI_GENERATE_CONTENT_V1_MAP)
    )


def _resolve(registry: dict[tuple[str, str], Any], data_schema: Any, default: Any) -> Any:
    if not isinstance(data_schema, dict):
        return default
    name, version = data_schema.get("name"), data_schema.get("version")
    if not isinstance(name, str) or not isinstance(version, str):  # a list there is unhashable
        return default
    return registry.get((name, version), default)


def resolve_llm_extractor(data_schema: dict[str, Any] | None) -> Any:
    """The extractor registered for ``data_schema``; the OpenAI chat extractor when absent or unknown."""
    return _resolve(LLM_EXTRACTOR_REGISTRY, data_schema, DEFAULT_LLM_EXTRACTOR)


def resolve_tool_extractor(data_schema: dict[str, Any] | None) -> Any:
    return _resolve(TOOL_EXTRACTOR_REGISTRY, data_schema, DEFAULT_TOOL_EXTRACTOR)


def resolve_mark_extractor(data_schema: dict[str, Any] | None) -> Any:
    return _resolve(MARK_EXTRACTOR_REGISTRY, data_schema, DEFAULT_MARK_EXTRACTOR)
