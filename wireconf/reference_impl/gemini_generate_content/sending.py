"""Sending a Gemini REST body through google-genai (``send`` of the api's record).

The body is mapped back onto ``generate_content(model, contents, config)``: ``generationConfig``
fields and the other top-level fields become the config (the SDK writes them back where they belong);
a stream is ``generate_content_stream`` with the same arguments.
"""

from __future__ import annotations

from typing import Any

_CONFIG_FIELDS = (
    "systemInstruction",
    "tools",
    "toolConfig",
    "safetySettings",
    "cachedContent",
    "labels",
)


def send_generate_content(client: Any, body: dict[str, Any], model: str, stream: bool) -> Any:
    """``models.generate_content``, or ``generate_content_stream`` when a stream is asked for."""
    from google.genai import types

    rest = dict(body)
    rest.pop("stream", None)  # a stream is the other method, never a body field (7.9.7)
    model = str(rest.pop("model", model))
    contents = rest.pop("contents", [])
    config: dict[str, Any] = dict(rest.pop("generationConfig", None) or {})
    for name in _CONFIG_FIELDS:
        if name in rest:
            config[name] = rest.pop(name)
    if rest:
        config["http_options"] = {"extra_body": rest}
    validated = types.GenerateContentConfig.model_validate(config) if config else None
    method = client.models.generate_content_stream if stream else client.models.generate_content
    return method(model=model, contents=contents, config=validated)
