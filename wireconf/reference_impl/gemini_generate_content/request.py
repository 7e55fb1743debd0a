"""§7.9.3-§7.9.7: tools, options, structured output and the full generateContent request body.

The body is the REST JSON the google-genai SDK sends (camelCase). The model is not in it: Gemini
addresses it in the URL path, ``models/{id}:generateContent`` (7.9.7/model-in-path).
"""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.gemini_generate_content.contents import convert_messages
from wireconf.reference_impl.options import build_options
from wireconf.reference_impl.schema import output_schema_to_wire
from wireconf.reference_impl.tools import tools_to_wire

GENERATION_CONFIG: dict[str, str] = {
    "temperature": "temperature",
    "maxOutputTokens": "maxOutputTokens",
    "topP": "topP",
    "topK": "topK",
    "frequencyPenalty": "frequencyPenalty",
    "presencePenalty": "presencePenalty",
    "stopSequences": "stopSequences",
    "seed": "seed",
}
"""§7.9.5: every ModelOptions field has a Gemini counterpart, inside ``generationConfig``."""

REQUEST_LEVEL = ("safetySettings", "toolConfig", "cachedContent")
"""additionalProperties keys that are fields of the request itself, not of its generationConfig."""

STREAM = "stream"
"""``additionalProperties.stream: true`` asks for ``streamGenerateContent`` (7.9.7/stream-selects-endpoint),
another method of the URL with the same body: it is not a body field, so it is left out of the body
(the executor reads it from the options)."""

JSON_MIME_TYPE = "application/json"


def function_declarations(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """§7.1.3's projection (bindings, strict schema), reshaped as Gemini function declarations.

    The JSON Schema goes to ``parametersJsonSchema`` verbatim (7.9.3/parameters-json-schema); the
    ``strict`` flag has no Gemini counterpart and is dropped (7.9.3/strict-schema-only).
    """
    declarations = []
    for func_def in tools_to_wire(tools, None) or []:
        function = func_def["function"]
        declaration: dict[str, Any] = {"name": function["name"]}
        if "description" in function:
            declaration["description"] = function["description"]
        declaration["parametersJsonSchema"] = function["parameters"]
        declarations.append(declaration)
    return declarations


def generation_config(model_options: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(generationConfig, request-level fields)`` from the model options."""
    config = build_options(model_options, GENERATION_CONFIG)
    config.pop(STREAM, None)
    request_level = {key: config.pop(key) for key in REQUEST_LEVEL if key in config}
    return config, request_level


def structured_output(outputs: list[dict[str, Any]] | None) -> dict[str, Any]:
    """§7.9.6: the §7.1.6 schema, unchanged, as ``responseJsonSchema`` with a JSON MIME type."""
    response_format = output_schema_to_wire(outputs)
    if response_format is None:
        return {}
    schema = response_format["json_schema"]["schema"]
    return {"responseMimeType": JSON_MIME_TYPE, "responseJsonSchema": schema}


def build_generate_content_args(agent: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    model = agent["model"]
    contents, system = convert_messages(messages)
    args: dict[str, Any] = {"contents": contents}
    if system:
        args["systemInstruction"] = {"role": "user", "parts": system}
    declarations = function_declarations(agent.get("tools"))
    if declarations:
        args["tools"] = [{"functionDeclarations": declarations}]
    config, request_level = generation_config(model.get("options"))
    args.update(request_level)
    config.update(structured_output(agent.get("outputs")))
    if config:
        args["generationConfig"] = config
    return args
