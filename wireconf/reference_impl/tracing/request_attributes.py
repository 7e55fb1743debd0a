"""§7.1.8's request attributes: operation name, provider, model and the request options.

The options are the ModelOptions fields the api's request really sends (its mapping table, named by
the api's record: ``ApiParts.sent_options``), under the OpenTelemetry GenAI semantic conventions'
names (project decision 7.1.8/request-option-names).
``additionalProperties`` are not traced (7.1.8/additional-properties-not-traced): they are
provider wire keys with no semantic-convention name, and may hold objects an attribute cannot.
"""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.apis import APIS

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


def request_attributes(api: str, agent: dict[str, Any]) -> dict[str, Any]:
    """The span attributes that describe the request ``agent`` makes on ``api`` (the api's record says
    its operation and the options its request sends)."""
    parts = APIS[api]
    model = agent["model"]
    attributes: dict[str, Any] = {"gen_ai.operation.name": parts.operation}
    provider = model.get("provider")
    if provider:
        attributes["gen_ai.provider.name"] = provider
    attributes["gen_ai.request.model"] = model["id"]
    options = model.get("options") or {}
    for field in parts.sent_options:
        value = options.get(field)
        if value is not None:
            attributes[SEMCONV_OPTION[field]] = list(value) if isinstance(value, list) else value
    if parts.always_traced is not None:
        attributes.update(parts.always_traced(options))
    return attributes
