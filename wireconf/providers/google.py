"""Google: the Gemini API's generateContent through ``google.genai.Client`` (Gemini API, not Vertex).

The provider is ``google`` (its cassettes folder, the agents' ``model.provider``, the real-traffic
recordings' provider); its api keeps the name the corpus gives it, ``gemini.generate_content``.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from wireconf.core.untyped import JSON, SDKObject
from wireconf.providers.contract import derived_equivalences
from wireconf.providers.equivalence import ANY_PATH, Equivalence
from wireconf.providers.provider import PLACEHOLDER_KEY, Api, Credential, KeyShape, Provider, Route

if TYPE_CHECKING:
    from google import genai
    from google.genai import types


def http_module() -> ModuleType:
    """google-genai works with httpx2 when it is installed (its default), else httpx."""
    try:
        import httpx2

        return httpx2
    except ImportError:  # pragma: no cover - depends on the installed SDK generation
        import httpx

        return httpx


def _http_options(transport: Any, **extra: Any) -> types.HttpOptions:
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


def api_version_of(uri: str) -> str | None:
    """The API version segment of a recorded Gemini request URI (``/v1beta/models/...`` → ``v1beta``)."""
    first = urlsplit(uri).path.lstrip("/").split("/", 1)[0]
    return first if first.startswith("v") and first[1:2].isdigit() else None


def client(transport: Any, uris: list[str] | None = None) -> genai.Client:
    """A real ``google.genai.Client`` (Gemini API, not Vertex) whose HTTP goes to ``transport``.

    The API version segment of request paths (``v1beta``, ``v1``) is the one the first recorded request
    used: the version is the client's choice, not the runtime's (google-genai 3 defaults to ``v1``,
    most recordings are ``v1beta``). Without recorded requests the SDK's default applies."""
    from google import genai

    api_version = api_version_of(uris[0]) if uris else None
    extra = {"api_version": api_version} if api_version else {}
    return genai.Client(
        api_key="wireconf-replay",
        vertexai=False,
        http_options=_http_options(transport, base_url="https://generativelanguage.googleapis.com/", **extra),
    )


def record_client(transport: Any) -> genai.Client:
    """The client a runtime gets in record mode: base URL from ``GOOGLE_GEMINI_BASE_URL`` (read by the
    SDK), the placeholder key (``transport`` adds the real credentials where it forwards), HTTP through
    ``transport``."""
    from google import genai
    from google.genai import types

    http = http_module()
    options = types.HttpOptions(
        httpx_client=http.Client(transport=transport),
        httpx_async_client=http.AsyncClient(transport=transport),
    )
    return genai.Client(api_key=PLACEHOLDER_KEY, vertexai=False, http_options=options)


def sdk_json(value: SDKObject) -> JSON:
    """google-genai models are written under their camelCase wire names (as parsed, without pydantic's
    warnings: ``provider.api_names_json`` says why)."""
    return value.model_dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)


def generate_content(sdk: genai.Client, headers: dict[str, str], stream: bool) -> SDKObject:
    """``GenerateContentResponse``, or the iterator of them that ``generate_content_stream`` returns
    (it requests ``alt=sse`` and sends the request on the first ``next()``)."""
    from google.genai import types

    config = types.GenerateContentConfig(http_options=types.HttpOptions(headers=headers))
    if stream:
        return sdk.models.generate_content_stream(model="wireconf-replay", contents="x", config=config)
    return sdk.models.generate_content(model="wireconf-replay", contents="x", config=config)


def sse(events: list[JSON]) -> bytes:
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


def canonical_body(value: JSON) -> JSON:
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


def read_body(value: JSON) -> JSON:
    """A Gemini request body as the API reads it, however the harness got it (returned by an adapter,
    sent over HTTP): every field under its JSON name (``canonical_body``), the proto3 JSON parser's
    equivalence (``proto3-json-spelling``), so that no runtime is judged by the spelling it, its SDK or its
    adapter happened to write. A body holding one field under both names (``max_output_tokens`` beside
    ``maxOutputTokens``) is another request, not another spelling: it is judged as sent."""
    canonical = canonical_body(value)
    return canonical if _size(canonical) == _size(value) else value


def _size(value: JSON) -> int:
    """How many keys ``value`` holds at every depth (two spellings of one field become one key)."""
    if isinstance(value, dict):
        return len(value) + sum(_size(v) for v in value.values())
    if isinstance(value, list):
        return sum(_size(v) for v in value)
    return 0


_REFERENCE = "https://ai.google.dev/api/generate-content"
_PROTO3_JSON = "https://protobuf.dev/programming-guides/json/"
_PROTOS = "google-ai-generativelanguage==0.12.1 (the pinned contract, contracts/google.json) "

GENERATE_CONTENT_EQUIVALENCES = (
    *derived_equivalences("google", "gemini.generate_content", nulls=False),
    Equivalence(
        "proto3-json-null",
        ANY_PATH,
        "null",
        _PROTO3_JSON + " (JSON mapping: null)",
        "null is an accepted value for all field types and treated as the default value of the "
        "corresponding field type",
        concept="null",
    ),
    Equivalence(
        "proto3-json-spelling",
        ANY_PATH,
        "spelling",
        _PROTO3_JSON + " (JSON options)",
        "Message field names are mapped to lowerCamelCase and become JSON object keys [...] Parsers "
        "accept both the lowerCamelCase name (or the one specified by the json_name option) and the "
        "original proto field name.",
    ),
    Equivalence(
        "candidate-count-default",
        "$.generationConfig.candidateCount",
        "default",
        _PROTOS + "GenerationConfig.candidate_count",
        "Optional. Number of generated responses to return. If unset, this will default to 1.",
        value=1,
        concept="n-default",
    ),
    Equivalence(
        "response-modalities-text",
        "$.generationConfig.responseModalities",
        "default",
        _PROTOS + "GenerationConfig.response_modalities",
        "Optional. The requested modalities of the response. [...] An empty list is equivalent to "
        "requesting only text.",
        value=["TEXT"],
    ),
    Equivalence(
        "generation-config-empty",
        "$.generationConfig",
        "empty",
        _REFERENCE + "#request-body (generationConfig: Optional) and " + _PROTO3_JSON,
        "generationConfig is an optional message field; in the proto3 JSON mapping a message field "
        "with no field set carries nothing: every setting keeps its default.",
    ),
    Equivalence(
        "function-calling-mode-default",
        "$.toolConfig.functionCallingConfig.mode",
        "default",
        "https://ai.google.dev/api/caching#Mode (FunctionCallingConfig.Mode)",
        "AUTO: Default model behavior, model decides to predict either a function call or a natural "
        "language response.",
        value="AUTO",
        concept="tool-choice-default-with-tools",
    ),
)
"""generateContent: requests the API reads alike (``wireconf.providers.equivalence``): every proto3
default its pinned contract states (``derived_equivalences``: a repeated field's ``[]``, a field without
presence its zero value), the proto3 JSON parser's own rules (``null``, either spelling), then what its
reference says."""


PROVIDER = Provider(
    name="google",
    title="Google Gemini",
    hosts=("generativelanguage.googleapis.com",),
    apis=(
        Api(
            "gemini.generate_content",
            generate_content,
            # the stream is another method (another URL), never a body field
            Route(r"/models/[^/]+:(?P<stream>stream)?[gG]enerateContent$", stream_field=False),
            sse,
            request_body=read_body,
            real_traffic="gemini",
            api_types=(None, "chat"),
            equivalences=GENERATE_CONTENT_EQUIVALENCES,
            sdk_models=("google.genai.types",),
        ),
    ),
    key_variables=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    base_url_variable="GOOGLE_GEMINI_BASE_URL",
    distributions=("google-genai", "httpx2"),
    http_module=http_module,
    replay_client=client,
    record_client=record_client,
    key_shapes=(
        KeyShape("Google API key (AIza…)", r"AIza[0-9A-Za-z_-]{35}"),
        KeyShape("Google OAuth access token (ya29.…)", r"ya29\.[0-9A-Za-z_-]{20,}"),
    ),
    sdk_json=sdk_json,
    # https://ai.google.dev/api#authentication: the API key in the x-goog-api-key header (the REST
    # reference also takes it as the key query parameter; an OAuth token goes as a bearer token)
    credentials=(Credential(("GEMINI_API_KEY", "GOOGLE_API_KEY"), "x-goog-api-key"),),
    auth_headers=frozenset({"x-goog-api-key", "authorization"}),
    auth_query=frozenset({"key"}),
)
