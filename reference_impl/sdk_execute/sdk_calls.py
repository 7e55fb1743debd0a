"""How each api's request body is sent through its official SDK client.

The body built by the api's wire function is passed to the SDK method as it is: keys the method
declares become its arguments, any other key (an option passed through ``additionalProperties``) goes
in ``extra_body``, so that the SDK sends exactly the built body and never refuses an unknown key.
``"stream": true`` in the body makes it a streaming call. Gemini's REST body is mapped back onto
google-genai's ``generate_content(model, contents, config)``: ``generationConfig`` fields and the
other top-level fields become the config (the SDK writes them back where they belong); a stream is
``generate_content_stream`` with the same arguments.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

_GEMINI_CONFIG_FIELDS = (
    "systemInstruction",
    "tools",
    "toolConfig",
    "safetySettings",
    "cachedContent",
    "labels",
)


def _kwargs(method: Callable[..., Any], body: dict[str, Any]) -> dict[str, Any]:
    declared = inspect.signature(method).parameters
    known = {k: v for k, v in body.items() if k in declared and k != "extra_body"}
    extra = {k: v for k, v in body.items() if k not in known}
    if extra:
        known["extra_body"] = extra
    return known


def _openai_method(path: str) -> Callable[[Any, dict[str, Any]], Any]:
    def call(client: Any, body: dict[str, Any]) -> Any:
        method = client
        for name in path.split("."):
            method = getattr(method, name)
        return method(**_kwargs(method, body))

    return call


def gemini_generate_content(client: Any, body: dict[str, Any], model: str, stream: bool) -> Any:
    """``models.generate_content``, or ``generate_content_stream`` when a stream is asked for."""
    from google.genai import types

    rest = dict(body)
    rest.pop("stream", None)  # a stream is the other method, never a body field (7.9.7)
    model = str(rest.pop("model", model))
    contents = rest.pop("contents", [])
    config: dict[str, Any] = dict(rest.pop("generationConfig", None) or {})
    for name in _GEMINI_CONFIG_FIELDS:
        if name in rest:
            config[name] = rest.pop(name)
    if rest:
        config["http_options"] = {"extra_body": rest}
    validated = types.GenerateContentConfig.model_validate(config) if config else None
    method = client.models.generate_content_stream if stream else client.models.generate_content
    return method(model=model, contents=contents, config=validated)


SDK_CALLS: dict[str, Callable[[Any, dict[str, Any]], Any]] = {
    "openai.chat": _openai_method("chat.completions.create"),
    "openai.embeddings": _openai_method("embeddings.create"),
    "openai.images": _openai_method("images.generate"),
    "openai.responses": _openai_method("responses.create"),
    "anthropic.messages": _openai_method("messages.create"),
}
"""api → ``call(client, body)``; Gemini is ``gemini_generate_content`` (it also needs the model id)."""
