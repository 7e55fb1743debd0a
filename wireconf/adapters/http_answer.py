"""The HTTP of a runtime that builds its own SDK clients (LangChain's chat models, LiteLLM, LlamaIndex's
LLM classes), pointed at the case's endpoint: observed on its way there, and its media downloads
answered here.

Those runtimes create their HTTP clients themselves (``ChatAnthropic._client``, LiteLLM's
``HTTPHandler``), so the harness cannot hand them a client; it hands them a base URL. What their
clients end in is the default transport of ``httpx`` or ``httpx2`` (the official SDKs use ``httpx2``,
LiteLLM ``httpx``): inside ``observing()`` each request goes out through it as it would, and is kept
with the status that came back (what LiteLLM's exceptions mean depends on it).

A runtime may also download a media URL of the case's input on the way (LiteLLM inlines an image for
Gemini and Anthropic through ``httpx``; langchain-google-genai and LlamaIndex fetch one with
``requests``): a GET is never the provider's call, so it is answered from ``downloads``
(``wireconf.cassettes.downloads``: fixture bytes for a URL the input names, a refused network attempt
for any other), through ``httpx``, ``httpx2`` and ``requests`` alike.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any
from unittest import mock

from wireconf.cassettes.downloads import Downloads

HTTP_MODULES = ("httpx", "httpx2")


@dataclass(frozen=True)
class Answer:
    """A response to serve: status, headers and the body (bytes, or chunks read as the caller reads)."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes | Iterable[bytes]


@dataclass
class Sent:
    """The requests the runtime sent, in order, and the statuses of those that went out."""

    requests: list[Any] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)


def _response(http: ModuleType, answer: Answer) -> Any:
    if isinstance(answer.body, bytes):
        return http.Response(answer.status, headers=answer.headers, content=answer.body)
    return http.Response(answer.status, headers=answer.headers, content=iter(answer.body))


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
def observing(downloads: Downloads | None = None) -> Iterator[Sent]:
    """Every request sent through the default transports of ``httpx`` and ``httpx2`` goes out as it
    would (a runtime pointed at an endpoint), kept with the status of its response: what a runtime's
    exception means may depend on whether it sent anything and what came back (LiteLLM's). A download
    (GET, HEAD), and any request of ``requests``, is answered from ``downloads`` when given: the
    endpoint stands for the provider, not for the web the input's media URLs name.

    A response still open when the block ends is closed then (``httpx.Response.close``), as a user
    closes a stream they stopped reading: LiteLLM stops reading a stream at its terminal event and drops
    the response in a reference cycle. Left to the garbage collector, its close (httpcore's
    ``PoolByteStream.close``) takes the connection pool's lock, which is not reentrant: a collection
    that runs while this thread holds that lock (sending the next request) never returns."""
    sent = Sent()
    opened: list[Any] = []
    with contextlib.ExitStack() as stack:
        if downloads is not None:
            _requests_answered(stack, downloads, sent)
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
