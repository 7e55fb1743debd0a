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
"""

from __future__ import annotations

import contextlib
import importlib
import json
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any
from unittest import mock

from wireconf.untyped import JSON, SDKObject

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
    """The requests the runtime sent, in order."""

    requests: list[Any] = field(default_factory=list)

    @property
    def calls(self) -> list[Any]:
        """The requests to the provider's API (POSTs): not a download the runtime made on the way
        (LiteLLM fetches an image URL to inline it)."""
        return [r for r in self.requests if r.method == "POST"]

    def body(self) -> Any:
        """The JSON body of the first call to the provider (what a ``wire`` case judges)."""
        if not self.calls:
            raise RuntimeError("the runtime sent no request to the provider")
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


@contextlib.contextmanager
def answering(reply: Reply) -> Iterator[Sent]:
    """Every request sent through the default transports of ``httpx`` and ``httpx2`` goes to ``reply``."""
    sent = Sent()
    with contextlib.ExitStack() as stack:
        for name in HTTP_MODULES:
            try:
                http = importlib.import_module(name)
            except ImportError:
                continue

            def handle(_transport: object, request: Any, http: ModuleType = http) -> Any:
                request.read()
                sent.requests.append(request)
                return _response(http, reply(request))

            async def handle_async(_transport: object, request: Any, http: ModuleType = http) -> Any:
                await request.aread()
                sent.requests.append(request)
                return _async_response(http, reply(request))

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
