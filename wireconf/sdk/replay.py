"""Recorded bytes → the objects a runtime really receives from the official SDKs.

The harness never builds an SDK object by hand: it hands the recorded status, headers and body to a
real SDK client whose HTTP transport replays them (``transport.py``), then calls the SDK method a
runtime would call for the api (the api's record, ``wireconf.providers``). The SDK parses the bytes
exactly as it would parse a live response, including its tolerance for fields it does not know yet.
One client per provider per process.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from wireconf.cassettes.store import RecordedResponse
from wireconf.core.errors import CaseInputError
from wireconf.core.stream_probe import StreamProbe, split_events
from wireconf.core.untyped import JSON, SDKObject
from wireconf.providers.provider import Api, Provider
from wireconf.providers.registry import APIS, PROVIDER_OF
from wireconf.sdk.cassette_transport import cassette_transport
from wireconf.sdk.parsed import Key, ParsedResponses, key_of
from wireconf.sdk.transport import ReplayTransport

if TYPE_CHECKING:
    from wireconf.cassettes.exchange import Exchange


def api_record(api: str) -> Api:
    """The record of ``api``; ``CaseInputError`` for an api no provider declares."""
    try:
        return APIS[api]
    except KeyError:
        raise CaseInputError(
            f"no provider declares the api {api!r}, so no SDK can parse its recorded responses",
            hint=f"known: {', '.join(APIS)}; another provider's api is an extension (docs/adding-an-api.md)",
        ) from None


def new_replay(provider: Provider) -> tuple[ReplayTransport, Any]:
    """A replay transport and the provider's SDK client on it."""
    replay = ReplayTransport(provider.http_module())
    return replay, provider.replay_client(replay.transport, [])


def streaming_record(api: str) -> Api:
    """The record of ``api``; ``CaseInputError`` for an api no provider declares or one without a
    streaming call."""
    record = api_record(api)
    if not record.streams:
        raise CaseInputError(
            f"{api} has no streaming call, so there is no stream to replay for it",
            hint="a stream case names an api whose record has `streams=True` (wireconf lint says which)",
        )
    return record


_WARM: dict[str, set[str]] = {}


def warm_up(api: str) -> None:
    """Make one throwaway call (and one streaming call) on ``api`` through its SDK, once per process.

    An SDK's first call imports its resource modules and builds its parsers (about 0.3 s for openai);
    an e2e case calls the SDK inside the runtime's time limit, so that one-time cost is paid here,
    outside it, as process and stream cases pay it when their input is prepared. The modules the
    warm-up imported are remembered: if something removed them (pytester restores ``sys.modules``
    after an in-process run), the next call warms up again."""
    loaded = _WARM.get(api)
    if loaded is not None and loaded <= sys.modules.keys():
        return
    before = set(sys.modules)
    _warm_up(api)
    _WARM[api] = set(sys.modules) - before


def _warm_up(api: str) -> None:
    record = api_record(api)
    replay, client = new_replay(PROVIDER_OF[api])
    attempts = [(RecordedResponse(200, {"content-type": ["application/json"]}, b"{}"), False)]
    if record.streams:
        attempts.append((RecordedResponse(200, {"content-type": ["text/event-stream"]}, b""), True))
    for recorded, stream in attempts:
        try:
            result = record.call(client, replay.prepare(recorded), stream)
            if stream:
                for _ in result:
                    pass
        except Exception:  # best effort: the case itself will show any real problem
            continue


def complete_models(api: str) -> None:
    """Build the validation schemas of the models ``api``'s responses and stream events are made of
    (its record's ``sdk_models``) now, rather than one by one as the first cases parse them. A process
    that parses what it has not seen before (the Python exec helper, whose inputs come case by case)
    pays that inside the cases otherwise: half a second of the stream kind's corpus run, against its
    one-time cost while the harness warms up too. The harness itself needs none of it: it parses each
    recorded response once before the first case (``SdkReplay.warm``)."""
    import pydantic

    for name in api_record(api).sdk_models:
        for value in list(vars(importlib.import_module(name)).values()):
            if not (isinstance(value, type) and issubclass(value, pydantic.BaseModel)):
                continue
            if not value.__pydantic_complete__:
                try:
                    value.model_rebuild()
                except (pydantic.errors.PydanticUndefinedAnnotation, pydantic.PydanticUserError):
                    continue  # a name not defined yet, a type it cannot build: left to its first use


def e2e_client(api: str, exchange: Exchange) -> Any:
    """A new official SDK client for ``api``'s provider whose HTTP is answered by ``exchange``: with
    the replay key and the provider's public base URL in replay, with the environment's key and base
    URL (read by the SDK itself, as a user's runtime would) when the exchange records."""
    provider = PROVIDER_OF[api]
    transport = cassette_transport(provider.http_module(), exchange)
    if exchange.records:
        return provider.record_client(transport)
    uris = [i.request.uri for i in exchange.cassette.interactions] if exchange.cassette else []
    return provider.replay_client(transport, uris)


_SHARED_CLIENTS: dict[str, tuple[ReplayTransport, Any]] = {}
"""One replay client per provider for the whole process: the transport answers each request by its
key, so sessions (nested pytester runs, the mutation workers' runs) can share them safely, and the
SDKs' client set-up is paid once."""


_PARSED = ParsedResponses()
"""Objects parsed from the same bytes are shared process-wide like the clients (each caller gets a copy)."""

_STREAMS_READ: set[Key] = set()
"""Recorded event streams this process has had its SDK read once (``SdkReplay.warm``)."""


class SdkReplay:
    """The per-session entry point; each provider's client is created on first use, once per process."""

    def client(self, provider: Provider) -> tuple[ReplayTransport, Any]:
        if provider.name not in _SHARED_CLIENTS:
            _SHARED_CLIENTS[provider.name] = new_replay(provider)
        return _SHARED_CLIENTS[provider.name]

    def response_object(self, api: str, recorded: RecordedResponse) -> SDKObject:
        """The SDK object a non-streaming call on ``api`` returns for ``recorded`` (a copy of the one the
        SDK made the first time it was given these bytes in this process)."""
        api_record(api)  # CaseInputError for an api no provider declares, before any parsing
        return _PARSED.get(api, recorded, lambda: self._parse(api, recorded))

    def warm(self, api: str, recorded: RecordedResponse) -> None:
        """Have the SDK parse ``recorded`` once in this process, ahead of the cases that use it.

        The SDKs build much of themselves on first use: pydantic's deferred model schemas (a model class
        is completed the first time an object of it is made, about a millisecond each), the resource
        modules of a call. Done in the pytest process before the case-runner process is forked, it is
        done once: every fork, and every later session in the process (pytester runs, the mutants of
        ``wireconf strength``), starts with it, where the runner process would otherwise redo it in each
        session and lose it at the session's end. A non-streaming object is kept (``ParsedResponses``); an
        event stream is read to its end once and dropped (a case gets a fresh SDK stream over the bytes)."""
        if not recorded.is_event_stream:
            _PARSED.keep(api, recorded, lambda: self._parse(api, recorded))
            return
        key = key_of(api, recorded)
        if key in _STREAMS_READ or not api_record(api).streams:
            return
        try:
            for _ in self.stream_object(api, recorded, StreamProbe(split_events(recorded.body))):
                pass
        finally:  # a stream the SDK raises on (an error event) is read once too: as far as it goes
            _STREAMS_READ.add(key)

    def _parse(self, api: str, recorded: RecordedResponse) -> SDKObject:
        replay, client = self.client(PROVIDER_OF[api])
        return api_record(api).call(client, replay.prepare(recorded), False)

    def stream_object(self, api: str, recorded: RecordedResponse, probe: StreamProbe) -> SDKObject:
        """The SDK stream object a streaming call on ``api`` returns for ``recorded``."""
        record = streaming_record(api)
        replay, client = self.client(PROVIDER_OF[api])
        return record.call(client, replay.prepare(recorded, probe), True)

    def inline_sse(self, api: str, events: list[JSON]) -> bytes:
        """The SSE bytes the provider would send for inline stream ``events``."""
        record = api_record(api)
        if record.sse is None:
            raise CaseInputError(
                f"{api} has no event stream, so inline `events` cannot be framed for it",
                hint=f"give the response of an {api} case as `body` or a `cassette`",
            )
        return record.sse(events)
