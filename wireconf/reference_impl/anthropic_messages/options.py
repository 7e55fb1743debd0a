"""§7.5 / §7.6 options for Anthropic Messages: ModelOptions → request parameters.

The Anthropic column of the §7.6 table lives here. ``maxOutputTokens`` is not in the table because it
is always sent (``max_tokens`` is required by the API) and has a default; ``frequencyPenalty``,
``presencePenalty`` and ``seed`` have no Anthropic parameter and are ignored without an error (§7.6).
"""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.options import build_options

ANTHROPIC: dict[str, str] = {
    "temperature": "temperature",
    "topP": "top_p",
    "topK": "top_k",
    "stopSequences": "stop_sequences",
}

DEFAULT_MAX_TOKENS = 4096


def max_tokens(options: dict[str, Any]) -> Any:
    """``maxOutputTokens or 4096``: absent, null and 0 all give the default (§7.5 uses ``or`` here,
    where the other options are tested with ``is not null``)."""
    return options.get("maxOutputTokens") or DEFAULT_MAX_TOKENS


def anthropic_options(options: dict[str, Any]) -> dict[str, Any]:
    """The mapped options whose value is not null, then additionalProperties under their own names."""
    return build_options(options, ANTHROPIC)
