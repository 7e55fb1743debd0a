"""Google Gemini: ``google.genai.Client`` over the replay transport, and generateContent."""

from __future__ import annotations

import json
from typing import Any

from harness.sdk.transport import ReplayTransport


def http_module() -> Any:
    """google-genai works with httpx2 when it is installed (its default), else httpx."""
    try:
        import httpx2

        return httpx2
    except ImportError:  # pragma: no cover - depends on the installed SDK generation
        import httpx

        return httpx


def _http_options(transport: Any, **extra: Any) -> Any:
    """Both of the SDK's HTTP clients (sync, and async for ``client.aio``) on ``transport``.

    Handing over both clients, and a TLS context for its websocket client that loads no certificates,
    keeps google-genai from building two default TLS contexts per client (about 100 ms each)."""
    import ssl

    from google.genai import types

    http = http_module()
    return types.HttpOptions(
        httpx_client=http.Client(transport=transport),
        httpx_async_client=http.AsyncClient(transport=transport),
        async_client_args={"ssl": ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)},
        **extra,
    )


def client(transport: Any, api_version: str | None = None) -> Any:
    """A real ``google.genai.Client`` (Gemini API, not Vertex) whose HTTP goes to ``transport``.

    ``api_version`` (``v1beta``, ``v1``) pins the version segment of request paths; an e2e case pins
    the one its cassette was recorded with, since the version is the client's choice, not the
    runtime's (google-genai 3 defaults to ``v1``, most recordings are ``v1beta``)."""
    from google import genai

    extra = {"api_version": api_version} if api_version else {}
    return genai.Client(
        api_key="wireconf-replay",
        vertexai=False,
        http_options=_http_options(transport, base_url="https://generativelanguage.googleapis.com/", **extra),
    )


def api_version_of(uri: str) -> str | None:
    """The API version segment of a recorded Gemini request URI (``/v1beta/models/...`` → ``v1beta``)."""
    from urllib.parse import urlsplit

    first = urlsplit(uri).path.lstrip("/").split("/", 1)[0]
    return first if first.startswith("v") and first[1:2].isdigit() else None


def record_client(transport: Any) -> Any:
    """The client a user with real keys gets: key from ``GEMINI_API_KEY`` / ``GOOGLE_API_KEY`` and base
    URL from ``GOOGLE_GEMINI_BASE_URL`` (read by the SDK), HTTP through ``transport``."""
    from google import genai
    from google.genai import types

    http = http_module()
    options = types.HttpOptions(
        httpx_client=http.Client(transport=transport),
        httpx_async_client=http.AsyncClient(transport=transport),
    )
    return genai.Client(vertexai=False, http_options=options)


def new_replay() -> tuple[ReplayTransport, Any]:
    replay = ReplayTransport(http_module())
    return replay, client(replay.transport)


def generate_content(sdk: Any, headers: dict[str, str], stream: bool) -> Any:
    """``GenerateContentResponse``, or the iterator of them that ``generate_content_stream`` returns
    (it requests ``alt=sse`` and sends the request on the first ``next()``)."""
    from google.genai import types

    config = types.GenerateContentConfig(http_options=types.HttpOptions(headers=headers))
    if stream:
        return sdk.models.generate_content_stream(model="wireconf-replay", contents="x", config=config)
    return sdk.models.generate_content(model="wireconf-replay", contents="x", config=config)


def sse(events: list[Any]) -> bytes:
    """Gemini's ``alt=sse`` framing: ``data:`` lines separated by CRLF blank lines."""
    return "".join(f"data: {json.dumps(e, ensure_ascii=False)}\r\n\r\n" for e in events).encode("utf-8")


_FREE_FORM = frozenset(
    {"args", "response", "parametersJsonSchema", "responseJsonSchema", "example", "default"}
)
"""Fields whose value is free JSON (protobuf Struct / Value): their keys are the caller's, kept as sent."""

_MAPS = frozenset({"properties", "labels"})
"""Map fields: their keys are names (kept as sent), their values are messages."""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def canonical_body(value: Any) -> Any:
    """A generateContent request body with every field under its JSON (lowerCamelCase) name.

    The Gemini API reads a field under its proto name (``parameters_json_schema``) or its JSON name
    (``parametersJsonSchema``) alike, and google-genai writes some nested fields one way or the other
    depending on its version (real traffic has ``thinkingConfig: {include_thoughts: ...}``). An e2e
    case names the fields once, in JSON names; free JSON values (a schema, call arguments) and the
    keys of maps are the caller's and are left exactly as sent."""
    if isinstance(value, list):
        return [canonical_body(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = _camel(key)
        if name in _FREE_FORM:
            out[name] = item
        elif name in _MAPS and isinstance(item, dict):
            out[name] = {k: canonical_body(v) for k, v in item.items()}
        else:
            out[name] = canonical_body(item)
    return out
