"""§7.1.5 / §7.6 options mapping: ModelOptions → a provider's request parameters."""

from __future__ import annotations

from typing import Any

OPENAI_CHAT: dict[str, str] = {
    "temperature": "temperature",
    "maxOutputTokens": "max_completion_tokens",  # NOT max_tokens (deprecated)
    "topP": "top_p",
    "frequencyPenalty": "frequency_penalty",
    "presencePenalty": "presence_penalty",
    "stopSequences": "stop",
    "seed": "seed",
}


def build_options(
    model_options: dict[str, Any] | None, mapping: dict[str, str] = OPENAI_CHAT
) -> dict[str, Any]:
    """Mapped fields first (null values omitted, unmapped fields ignored), then additionalProperties
    for keys the mapping did not set."""
    opts: dict[str, Any] = {}
    if not model_options:
        return opts
    for field, value in model_options.items():
        if field in mapping and value is not None:  # project decision 7.1.5/null-option-omitted
            opts[mapping[field]] = value
    for key, value in (model_options.get("additionalProperties") or {}).items():
        if key not in opts:
            opts[key] = value
    return opts
