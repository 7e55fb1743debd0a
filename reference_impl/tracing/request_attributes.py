"""§7.1.8's request attributes: operation name, provider, model and the request options.

The options are the ModelOptions fields the api's request really sends (its mapping table), under
the OpenTelemetry GenAI semantic conventions' names (project decision 7.1.8/request-option-names).
``additionalProperties`` are not traced (7.1.8/additional-properties-not-traced): they are
provider wire keys with no semantic-convention name, and may hold objects an attribute cannot.
"""

from __future__ import annotations

from typing import Any

from reference_impl.anthropic_messages.options import ANTHROPIC, max_tokens
from reference_impl.gemini_generate_content.request import GENERATION_CONFIG
from reference_impl.openai_responses.request import RESPONSES_OPTIONS
from reference_impl.options import OPENAI_CHAT

OPERATION: dict[str, str] = {
    "openai.chat": "chat",
    "openai.responses": "chat",
    "anthropic.messages": "chat",
    "gemini.generate_content": "chat",
    "openai.embeddings": "embeddings",
    "openai.images": "generate_content",
}
"""gen_ai.operation.name per api (§7.1.8 "chat", §7.2 "embeddings"; the others are decision
7.1.8/operation-name-other-apis)."""

SEMCONV_OPTION: dict[str, str] = {
    "temperature": "gen_ai.request.temperature",
    "maxOutputTokens": "gen_ai.request.max_tokens",
    "topP": "gen_ai.request.top_p",
    "topK": "gen_ai.request.top_k",
    "frequencyPenalty": "gen_ai.request.frequency_penalty",
    "presencePenalty": "gen_ai.request.presence_penalty",
    "stopSequences": "gen_ai.request.stop_sequences",
    "seed": "gen_ai.request.seed",
}

SENT_OPTIONS: dict[str, tuple[str, ...]] = {
    "openai.chat": tuple(OPENAI_CHAT),
    "openai.images": tuple(OPENAI_CHAT),  # §7.3 passes build_options through
    "openai.responses": tuple(RESPONSES_OPTIONS),
    "anthropic.messages": tuple(ANTHROPIC),  # max_tokens is always sent: see below
    "gemini.generate_content": tuple(GENERATION_CONFIG),
    "openai.embeddings": (),  # §7.2 sends no options
}


def request_attributes(api: str, agent: dict[str, Any]) -> dict[str, Any]:
    """The span attributes that describe the request ``agent`` makes on ``api``."""
    model = agent["model"]
    attributes: dict[str, Any] = {"gen_ai.operation.name": OPERATION[api]}
    provider = model.get("provider")
    if provider:
        attributes["gen_ai.provider.name"] = provider
    attributes["gen_ai.request.model"] = model["id"]
    options = model.get("options") or {}
    for field in SENT_OPTIONS[api]:
        value = options.get(field)
        if value is not None:
            attributes[SEMCONV_OPTION[field]] = list(value) if isinstance(value, list) else value
    if api == "anthropic.messages":
        attributes["gen_ai.request.max_tokens"] = max_tokens(options)
    return attributes
