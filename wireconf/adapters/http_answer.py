"""The HTTP transport of a runtime that builds its own SDK clients (LangChain's chat models, LiteLLM),
answered here instead of by a provider.

LangChain and LiteLLM create their HTTP clients themselves (``ChatAnthropic._client``, LiteLLM's
``HTTPHandler``), so the harness cannot hand them a client. What they all end in is the default
transport of ``httpx`` or ``httpx2`` (the official SDKs use ``httpx2``, LiteLLM ``httpx``): inside
``answering(reply)`` that transport's ``handle_request`` hands each request to ``reply`` and returns
its answer as the HTTP response. Everything above the transport, the runtime's request building and
its parsing of the response, runs as in production; only the socket is replaced (the case runner has
no network anyway). ``sent`` keeps every request, its body read, so a ``wire`` run takes the body
the runtime really sent.

A runtime may also download a media URL of the case's input on the way (LiteLLM inlines an image for
Gemini and Anthropic through ``httpx``; langchain-google-genai fetches one with ``requests``): a GET is
never the provider's call, so it is answered from ``downloads`` (``wireconf.cassettes.downloads``:
fixture bytes for a URL the input names, a refused network attempt for any other), through ``httpx``,
``httpx2`` and ``requests`` alike.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any
from unittest import mock

from wireconf.adapter_contract import NoRequestSent
from wireconf.cassettes.downloads import Downloads
from wireconf.core.untyped import JSON, SDKObject

HTTP_MODULES = ("httpx", "httpx2")


@dataclass(frozen=True)
class Answer:
    """A response to serve: status, headers and the body (bytes, or chunks read as the caller reads)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes | Iterable[bytes]


Reply = Callable[[Any], Answer]


@dataclass
class Sent:
    """The requests the runtime sent, in order (and, where they went out, the statuses that came back)."""

    requests: list[Any] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)

    @property
    def calls(self) -> list[Any]:
        """The requests to the provider's API (POSTs): not a download the runtime made on the way
        (LiteLLM fetches an image URL to inline it)."""
        return [r for r in self.requests if r.method == "POST"]

    def body(self) -> Any:
        """The JSON body of the first call to the provider (what a ``wire`` case judges); the runtime's
        outcome ``NoRequestSent`` when it made none."""
        if not self.calls:
            raise NoRequestSent("the runtime sent no request to the provider")
        return json.loads(self.calls[0].content)


REFUSED = Answer(
    400,
    [("content-type", "application/json")],
    b'{"type":"error","error":{"type":"invalid_request_error","message":"wireconf: request captured"}}',
)
"""What a ``wire`` run answers: an error the SDKs raise at once (a 400 is never retried)."""


def _response(http: ModuleType, answer: Answer) -> Any:
    if isinstance(answer.body, bytes):
        return http.Response(answer.status, headers=answer.headers, content=answer.body)
    return http.Response(answer.status, headers=answer.headers, content=iter(answer.body))


async def _async_chunks(chunks: Iterable[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def _async_response(http: ModuleType, answer: Answer) -> Any:
    if isinstance(answer.body, bytes):
        return http.Response(answer.status, headers=answer.headers, content=answer.body)
    return http.Response(answer.status, headers=answer.headers, content=_async_chunks(answer.body))


def _is_download(request: Any) -> bool:
    return str(request.method).upper() in ("GET", "HEAD")


def _downloaded(downloads: Downloads, request: Any) -> Answer:
    found = downloads.fetch(str(request.method), str(request.url))
    return Answer(found.status, found.headers, found.body)


def _requests_answered(stack: contextlib.ExitStack, downloads: Downloads, sent: Sent) -> None:
    """``requests`` (langchain-google-genai's image loader) answered from ``downloads`` alone: no
    runtime sends its provider call through it."""
    try:
        adapters = importlib.import_module("requests.adapters")
        structures = importlib.import_module("requests.structures")
        models = importlib.import_module("requests.models")
    except ImportError:
        return

    def send(_adapter: Any, request: Any, *_args: Any, **_kwargs: Any) -> Any:
        sent.requests.append(request)
        found = downloads.fetch(str(request.method), str(request.url))
        response = models.Response()
        response.status_code, response._content, response.url = found.status, found.body, request.url
        response.headers = structures.CaseInsensitiveDict(found.headers)
        response.request, response.reason, response.encoding = request, "OK", None
        return response

    stack.enter_context(mock.patch.object(adapters.HTTPAdapter, "send", send))


@contextlib.contextmanager
def requests_answered(downloads: Downloads) -> Iterator[Sent]:
    """``requests`` alone answered from ``downloads``: a runtime pointed at an endpoint sends its
    provider calls there for real, and its media loader's downloads (``requests``) get the fixtures."""
    sent = Sent()
    with contextlib.ExitStack() as stack:
        _requests_answered(stack, downloads, sent)
        yield sent


class _Inside(threading.local):
    depth = 0


_INSIDE = _Inside()
"""How deep this thread is in a ``reply``: HTTP the reply itself sends (``forwarding`` through a
recording client, whose upstream is an ``httpx`` client of the default transport) goes out as it
would, never back into the reply."""


def _answer(reply: Reply, downloads: Downloads, request: Any) -> Answer:
    if _is_download(request):
        return _downloaded(downloads, request)
    _INSIDE.depth += 1
    try:
        return reply(request)
    finally:
        _INSIDE.depth -= 1


def _transports() -> Iterator[tuple[Any, Any, Any]]:
    """Each installed HTTP module of ``HTTP_MODULES`` with its default transports' real send methods."""
    for name in HTTP_MODULES:
        try:
            http = importlib.import_module(name)
        except ImportError:
            continue
        yield http, http.HTTPTransport.handle_request, http.AsyncHTTPTransport.handle_async_request


def _patch(stack: contextlib.ExitStack, http: Any, handle: Any, handle_async: Any) -> None:
    """``http``'s default transports send through ``handle`` / ``handle_async`` until ``stack`` closes."""
    stack.enter_context(mock.patch.object(http.HTTPTransport, "handle_request", handle))
    stack.enter_context(mock.patch.object(http.AsyncHTTPTransport, "handle_async_request", handle_async))


@contextlib.contextmanager
def answering(reply: Reply, downloads: Downloads | None = None) -> Iterator[Sent]:
    """Every request sent through the default transports of ``httpx`` and ``httpx2`` goes to ``reply``,
    but a download (GET, HEAD), which ``downloads`` answers, as it answers any request of ``requests``
    (no downloads given: every download is refused as a network attempt)."""
    sent = Sent()
    downloads = downloads if downloads is not None else Downloads()
    with contextlib.ExitStack() as stack:
        _requests_answered(stack, downloads, sent)
        for http, real, real_async in _transports():

            def handle(transport: Any, request: Any, http: Any = http, real: Any = real) -> Any:
                if _INSIDE.depth:  # the reply's own HTTP (a recording client's upstream): the real one
                    return real(transport, request)
                request.read()
                sent.requests.append(request)
                return _response(http, _answer(reply, downloads, request))

            async def handle_async(
                transport: Any, request: Any, http: Any = http, real: Any = real_async
            ) -> Any:
                if _INSIDE.depth:
                    return await real(transport, request)
                await request.aread()
                sent.requests.append(request)
                return _async_response(http, _answer(reply, downloads, request))

            _patch(stack, http, handle, handle_async)
        yield sent


@contextlib.contextmanager
def observing(downloads: Downloads | None = None) -> Iterator[Sent]:
    """Every request sent through the default transports of ``httpx`` and ``httpx2`` goes out as it
    would (a runtime pointed at an endpoint), kept with the status of its response: what a runtime's
    exception means may depend on whether it sent anything and what came back (LiteLLM's). A download
    (GET, HEAD) is answered from ``downloads`` when given: the endpoint stands for the provider, not
    for the web the input's media URLs name.

    A response still open when the block ends is closed then (``httpx.Response.close``), as a user
    closes a stream they stopped reading: LiteLLM stops reading a stream at its terminal event and drops
    the response in a reference cycle. Left to the garbage collector, its close (httpcore's
    ``PoolByteStream.close``) takes the connection pool's lock, which is not reentrant: a collection
    that runs while this thread holds that lock (sending the next request) never returns."""
    sent = Sent()
    opened: list[Any] = []
    with contextlib.ExitStack() as stack:
        for http, real, real_async in _transports():

            def handle(transport: Any, request: Any, http: Any = http, real: Any = real) -> Any:
                sent.requests.append(request)
                if downloads is not None and _is_download(request):
                    return _response(http, _downloaded(downloads, request))
                response = real(transport, request)
                sent.statuses.append(response.status_code)
                opened.append(response)
                return response

            async def handle_async(transport: Any, request: Any, real: Any = real_async) -> Any:
                sent.requests.append(request)
                response = await real(transport, request)
                sent.statuses.append(response.status_code)
                return response

            _patch(stack, http, handle, handle_async)
        try:
            yield sent
        finally:
            for response in opened:
                response.close()


def _event(data: JSON) -> bytes:
    """One SSE event; named by its ``type`` as Anthropic and the Responses API name theirs."""
    name = data.get("type") if isinstance(data, dict) else None
    head = f"event: {name}\n" if isinstance(name, str) else ""
    return (head + "data: " + json.dumps(data, separators=(",", ":")) + "\n\n").encode()


def recorded_answer(sdk_object: SDKObject, stream: bool) -> Answer:
    """The recorded response ``sdk_object`` was parsed from (its events read through the stream's
    probe, so incremental reading stays counted); for an object the harness did not parse itself (an
    inline case), its provider JSON, as one body or as ``data:`` events."""
    from wireconf.exec_protocol.messages import to_json
    from wireconf.sdk.origins import origin_of

    origin = origin_of(sdk_object)
    if origin is not None:
        headers = [
            (k, v)
            for k, values in origin.recorded.headers.items()
            for v in values
            if k.lower() not in ("content-length", "content-encoding", "transfer-encoding")
        ]
        body = origin.probe.chunks() if origin.probe is not None else origin.recorded.body
        return Answer(origin.recorded.status, headers, body)
    if stream:
        return Answer(200, [("content-type", "text/event-stream")], map(_event, map(to_json, sdk_object)))
    body = json.dumps(to_json(sdk_object)).encode()
    return Answer(200, [("content-type", "application/json")], body)


ANSWER_DROPPED_HEADERS = ("content-length", "content-encoding", "transfer-encoding")
"""Set for the bytes on the socket: the answer's body is served decoded, its length as it is."""


def forwarding(client: Any) -> Reply:
    """An ``e2e`` case's answers: each request the runtime sends goes, byte for byte, through the HTTP
    client of the official SDK client the harness handed over (its transport replays the case's
    cassette, or records), as the exec bridge sends a remote runtime's (``HttpBridge``); the response,
    a stream's body read only as the runtime reads it, is the answer."""
    from wireconf.exec_protocol.http_bridge import DROPPED_REQUEST_HEADERS, sdk_http

    http = sdk_http(client)

    def reply(request: Any) -> Answer:
        headers = [
            (name, value)
            for name, value in request.headers.multi_items()
            if name.lower() not in DROPPED_REQUEST_HEADERS
        ]
        built = http.build_request(request.method, str(request.url), headers=headers, content=request.content)
        response = http.send(built, stream=True)
        kept = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in ANSWER_DROPPED_HEADERS]
        return Answer(response.status_code, kept, _decoded(response))

    return reply


def _decoded(response: Any) -> Iterator[bytes]:
    try:
        yield from response.iter_bytes()
    finally:
        response.close()
