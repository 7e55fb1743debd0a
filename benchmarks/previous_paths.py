"""The previous path of the adapters moved onto the emulator (``emulator_overhead.py``'s ``*Before``
classes): the runtime's HTTP transport answered in memory, as LangChain's, LiteLLM's and LlamaIndex's
adapters answered it before their runtimes were pointed at the case's endpoint. Kept here, for the
benchmark alone, so that the move's cost is measured against the same runtime on the path it left.

Inside ``answering(reply)`` the default transports of ``httpx`` and ``httpx2`` hand each request to
``reply`` and return its answer (a download, GET or HEAD, answered from ``downloads``, as ``requests``
is); ``recorded_answer`` re-serialises the SDK object the harness parsed; ``forwarding`` sends each
request through the handed SDK client's HTTP (its transport replays the case's cassette); ``REFUSED``
is what a ``wire`` run answered once the body was taken.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from types import ModuleType
from typing import Any
from unittest import mock

from wireconf.adapter_contract import NoRequestSent
from wireconf.adapters.http_answer import Answer, Sent, requests_answered
from wireconf.cassettes.downloads import Downloads
from wireconf.core.untyped import JSON, SDKObject

HTTP_MODULES = ("httpx", "httpx2")

Reply = Callable[[Any], Answer]


class Captured(Sent):
    """The requests the runtime sent: its calls to the provider (POSTs) and the first one's body."""

    @property
    def calls(self) -> list[Any]:
        return [r for r in self.requests if r.method == "POST"]

    def body(self) -> Any:
        if not self.calls:
            raise NoRequestSent("the runtime sent no request to the provider")
        return json.loads(self.calls[0].content)


REFUSED = Answer(
    400,
    [("content-type", "application/json")],
    b'{"type":"error","error":{"type":"invalid_request_error","message":"wireconf: request captured"}}',
)
"""What a ``wire`` run answered: an error the SDKs raise at once (a 400 is never retried)."""


async def _async_chunks(chunks: Iterable[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def _response(http: ModuleType, answer: Answer, asynchronous: bool) -> Any:
    body = answer.body
    if not isinstance(body, bytes):
        body = _async_chunks(body) if asynchronous else iter(body)
    return http.Response(answer.status, headers=answer.headers, content=body)


class _Inside(threading.local):
    depth = 0


_INSIDE = _Inside()
"""How deep this thread is in a ``reply``: HTTP the reply itself sends (``forwarding`` through a
recording client) goes out as it would, never back into the reply."""


def _answer(reply: Reply, downloads: Downloads, request: Any) -> Answer:
    if str(request.method).upper() in ("GET", "HEAD"):
        found = downloads.fetch(str(request.method), str(request.url))
        return Answer(found.status, found.headers, found.body)
    _INSIDE.depth += 1
    try:
        return reply(request)
    finally:
        _INSIDE.depth -= 1


@contextlib.contextmanager
def answering(reply: Reply, downloads: Downloads | None = None) -> Iterator[Captured]:
    """Every request sent through the default transports of ``httpx`` and ``httpx2`` goes to ``reply``,
    but a download (GET, HEAD), which ``downloads`` answers, as it answers any request of ``requests``."""
    sent = Captured()
    downloads = downloads if downloads is not None else Downloads()
    with contextlib.ExitStack() as stack:
        stack.enter_context(requests_answered(downloads))
        for name in HTTP_MODULES:
            try:
                http = importlib.import_module(name)
            except ImportError:
                continue
            real, real_async = http.HTTPTransport.handle_request, http.AsyncHTTPTransport.handle_async_request

            def handle(transport: Any, request: Any, http: Any = http, real: Any = real) -> Any:
                if _INSIDE.depth:
                    return real(transport, request)
                request.read()
                sent.requests.append(request)
                return _response(http, _answer(reply, downloads, request), asynchronous=False)

            async def handle_async(
                transport: Any, request: Any, http: Any = http, real: Any = real_async
            ) -> Any:
                if _INSIDE.depth:
                    return await real(transport, request)
                await request.aread()
                sent.requests.append(request)
                return _response(http, _answer(reply, downloads, request), asynchronous=True)

            stack.enter_context(mock.patch.object(http.HTTPTransport, "handle_request", handle))
            stack.enter_context(
                mock.patch.object(http.AsyncHTTPTransport, "handle_async_request", handle_async)
            )
        yield sent


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
