"""An e2e case's SDK client, for a runtime in another process (protocol 2, ``e2e`` capabilities).

In-process, an e2e runtime is handed an official SDK client whose transport replays the case's
cassette (or records). A runtime in another language has SDKs of its own, so the client stays here
and the runtime gets what it needs to build its own: the base URL. Its SDK's HTTP goes through the
protocol (``http`` → ``response``, a streamed body pulled with ``next``), and this bridge sends each
request, byte for byte, with the harness client's own HTTP client: the same transport, so the
cassette matching, the record mode, the stream probe and the e2e verdict see the runtime's requests
exactly as they see an in-process runtime's.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from wireconf.core.errors import NotJudged
from wireconf.exec_protocol.records.bridge import recorded_json

DROPPED_REQUEST_HEADERS = frozenset({"content-length", "host", "connection", "transfer-encoding"})
"""Set by the HTTP client for the bytes it really sends, never copied from the runtime's request."""


class HttpBridge:
    """Sends a remote runtime's HTTP requests through an e2e case's SDK client."""

    def __init__(self, client: Any, version_path: str = "") -> None:
        http, base_url, api_base_url = _sdk_http(client, version_path)
        if not (callable(getattr(http, "send", None)) and callable(getattr(http, "build_request", None))):
            # the harness's limit, not the runtime's deviation: the case is an error that says so
            raise NotJudged(
                f"this case's SDK client ({type(client).__module__}.{type(client).__name__}) cannot be "
                "handed to a runtime in another process: it does not expose the HTTP client the exec "
                "bridge sends the runtime's requests through (the bridge serves the official SDKs' "
                "clients); not a verdict on the runtime",
                hint="run this provider's e2e cases with an in-process adapter (--impl module:Adapter)",
            )
        self._http = http
        parts = urlsplit(base_url)
        self.description = {
            "base_url": base_url,
            "origin": f"{parts.scheme}://{parts.netloc}",
            "api_base_url": api_base_url,
        }
        """What the runtime builds its own client from (the ``client`` argument of ``execute``), in the
        forms SDKs take it: ``base_url`` as the provider's Python SDK does (OpenAI's ends in ``/v1``,
        Anthropic's has no version: its TypeScript SDK's form too; Gemini's ends in ``/`` and the
        version is the client's ``api_version``), ``origin`` (scheme and host alone), and
        ``api_base_url``, up to and including the API version (``…/v1``, ``…/v1beta``): the form of the
        Vercel AI SDK's providers and of most other SDKs."""

    def send(self, request: Mapping[str, Any]) -> tuple[dict[str, Any], Iterator[bytes] | None]:
        """The ``response`` message's fields for ``request`` (an ``http`` message's), and, for an event
        stream, the chunks its body is pulled from; a request that gets no response (it matches no
        recorded interaction, the connection fails) gives ``{"error": why}``."""
        body = request.get("body")
        if isinstance(body, str):
            data = base64.b64decode(body) if request.get("encoding") == "base64" else body.encode("utf-8")
        else:
            data = None
        headers = [
            (name, str(value))
            for name, values in (request.get("headers") or {}).items()
            if name.lower() not in DROPPED_REQUEST_HEADERS
            for value in values
        ]
        try:
            built = self._http.build_request(
                str(request.get("method", "GET")), str(request.get("url")), headers=headers, content=data
            )
            response = self._http.send(built, stream=True)
        except Exception as exc:  # the runtime's fetch rejects, as on a failed connection
            return {"error": f"{type(exc).__name__}: {exc}"}, None
        recorded: dict[str, list[str]] = {}
        for name, value in response.headers.multi_items():
            recorded.setdefault(name, []).append(value)
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            return recorded_json(response.status_code, recorded, None), _chunks(response)
        try:
            content = response.read()
        finally:
            response.close()
        return recorded_json(response.status_code, recorded, content), None


@cache
def unbridgeable(api: str) -> str | None:
    """Why an e2e case of ``api`` cannot be handed to a runtime in another process (its provider's SDK
    client exposes no HTTP client to send the runtime's requests with), or None when it can: checked
    at hello, so that a runtime never declares an e2e capability the harness cannot deliver."""
    from wireconf.providers.registry import PROVIDER_OF

    provider = PROVIDER_OF.get(api)
    if provider is None:
        return f"no provider serves {api}"
    try:
        http = provider.http_module()
        HttpBridge(
            provider.replay_client(http.MockTransport(lambda request: http.Response(200)), []),
            provider.version_path,
        )
    except Exception as exc:  # the SDK missing, or a client the bridge cannot reach into
        return f"{type(exc).__name__}: {exc}"
    return None


def sdk_http(client: Any) -> Any:
    """The HTTP client an official SDK client sends through (``HttpBridge``'s; what the previous path of
    the adapters pointed at endpoints forwarded through: ``benchmarks/previous_paths.py``)."""
    return _sdk_http(client)[0]


def _sdk_http(client: Any, version_path: str = "") -> tuple[Any, str, str]:
    """The HTTP client of an official SDK client, its base URL, and its base URL with the API version.

    openai and anthropic keep theirs as ``_client`` and ``base_url`` (openai's with its ``/v1``, anthropic's
    without: its SDK adds ``/v1/messages``, hence the provider's ``version_path``); google-genai as
    ``_api_client._httpx_client``,
    with the base URL and the version (``v1beta``) in its HTTP options."""
    api_client = getattr(client, "_api_client", None)  # google.genai.Client
    if api_client is not None:
        options = api_client._http_options
        base = str(options.base_url or "https://generativelanguage.googleapis.com/")
        version = str(options.api_version or "v1beta")
        return api_client._httpx_client, base, f"{base.rstrip('/')}/{version}"
    base = str(getattr(client, "base_url", ""))
    versioned = base.rstrip("/") + version_path  # the provider record's, where the SDK adds it per call
    return getattr(client, "_client", None), base, versioned


def _chunks(response: Any) -> Iterator[bytes]:
    try:
        yield from response.iter_raw()
    finally:
        response.close()
