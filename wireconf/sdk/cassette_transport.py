"""The HTTP transport under the SDK client an e2e case hands to a runtime.

Every request the runtime sends through the client is captured as sent (method, URL, body bytes) and
answered by the case's ``Exchange``: from the cassette in replay, from the real provider in record
mode (then read in full and kept for the cassette, as vcrpy does; the client holds a placeholder key,
and the real credentials are added where the request leaves: ``Provider.authorised``; a credential
the provider echoes is withheld from what the runtime is answered, as the emulator's recording proxy
withholds it: ``wireconf.emulator.recording.withheld``, so that an ``exec:`` runtime, answered through
this transport by the bridge, never holds one). In record
mode a request reaches only the provider's origin (``wireconf.cassettes.recording.allowed_origin``):
anywhere else it is a network attempt, refused before it leaves, and nothing of it is kept. Event
streams are served one event per chunk through a ``StreamProbe``, so that an e2e case can check
incremental processing like a stream case does. The transport serves both the sync and the async
client of an SDK.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from types import ModuleType
from typing import TYPE_CHECKING, Any

from wireconf.cassettes.network_guard import GUARD
from wireconf.cassettes.recording import allowed_origin, origin_of
from wireconf.cassettes.store import RecordedResponse
from wireconf.core.errors import WireconfError
from wireconf.core.stream_probe import StreamProbe, split_events
from wireconf.emulator.recording import grouped, withheld
from wireconf.providers.registry import PROVIDERS

if TYPE_CHECKING:
    from wireconf.cassettes.exchange import Exchange

_DROPPED_RESPONSE_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


class UnmatchedRequest(WireconfError):
    """The request matches no recorded interaction (the SDK reports it as a connection error)."""


def cassette_transport(http: ModuleType, exchange: Exchange) -> Any:
    """A transport of the ``http`` library (``httpx2`` or ``httpx``) answering from ``exchange``."""

    # the bases are the http library's given at run time (httpx2 or httpx): unknown to the checker
    class _Chunks(http.SyncByteStream, http.AsyncByteStream):  # type: ignore[misc, name-defined]
        def __init__(self, probe: StreamProbe) -> None:
            self.probe = probe

        def __iter__(self) -> Iterator[bytes]:
            return self.probe.chunks()

        async def __aiter__(self) -> AsyncIterator[bytes]:
            for chunk in self.probe.chunks():
                yield chunk

    # as _Chunks: bases from the http library given at run time
    class CassetteTransport(http.BaseTransport, http.AsyncBaseTransport):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            self._upstream: Any = None

        def _respond(self, status: int, headers: list[tuple[str, str]], body: bytes, stream: bool) -> Any:
            if stream:
                probe = StreamProbe(split_events(body))
                exchange.probes.append(probe)
                return http.Response(status, headers=headers, stream=_Chunks(probe))
            return http.Response(status, headers=headers, content=body)

        def _forward(self, request: Any, body: bytes) -> tuple[int, str, list[tuple[str, str]], bytes]:
            """Sent with the provider's real credentials in place of the placeholder the runtime's
            client holds, added by the process that holds the keys."""
            sent = list(request.headers.multi_items())
            if GUARD.passage is not None:  # the case runner's namespace: the pytest process sends it
                status, reason, headers, content = GUARD.passage.forward(
                    request.method, str(request.url), sent, body, provider=exchange.provider
                )
                kept = [(k, v) for k, v in headers if k.lower() not in _DROPPED_RESPONSE_HEADERS]
                return status, reason, kept, content
            if self._upstream is None:
                self._upstream = http.Client(trust_env=True, timeout=http.Timeout(600.0, connect=30.0))
            url, headers = PROVIDERS[exchange.provider].authorised(str(request.url), sent, exchange.environ)
            headers = [(k, v) for k, v in headers if k.lower() not in ("host", "content-length")]
            with GUARD.allowed():
                response = self._upstream.send(
                    http.Request(request.method, url, headers=headers, content=body)
                )
            headers = [
                (k, v)
                for k, v in response.headers.multi_items()
                if k.lower() not in _DROPPED_RESPONSE_HEADERS
            ]
            return response.status_code, response.reason_phrase, headers, response.content

        def _answer(self, request: Any, body: bytes) -> Any:
            sent = exchange.send(request.method, str(request.url), list(request.headers.multi_items()), body)
            recorded = exchange.replay(sent)
            if recorded is not None:
                headers = [(k, v) for k, values in recorded.headers.items() for v in values]
                return self._respond(recorded.status, headers, recorded.body, recorded.is_event_stream)
            if not exchange.records:
                raise UnmatchedRequest(exchange.unmatched_message(sent))
            if not allowed_origin(str(request.url), exchange.provider, exchange.environ):
                _, host, port = origin_of(str(request.url)) or ("", request.url.host, request.url.port)
                raise GUARD.refuse("connect", host, port)
            status, reason, headers, content = self._forward(request, body)
            exchange.keep(sent, status, reason, headers, content)  # as answered: the writer refuses a key
            shown = withheld(RecordedResponse(status, grouped(headers), content), exchange.environ)
            headers = [(k, v) for k, values in shown.headers.items() for v in values]
            stream = any(
                k.lower() == "content-type" and v.startswith("text/event-stream") for k, v in headers
            )
            return self._respond(status, headers, shown.body, stream)

        def handle_request(self, request: Any) -> Any:
            return self._answer(request, request.read())

        async def handle_async_request(self, request: Any) -> Any:
            body = await request.aread()
            return await asyncio.to_thread(self._answer, request, body)

        def close(self) -> None:
            if self._upstream is not None:
                self._upstream.close()

        async def aclose(self) -> None:
            self.close()

    transport = CassetteTransport()
    exchange.closers.append(transport.close)
    return transport
