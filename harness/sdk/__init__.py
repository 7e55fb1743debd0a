"""Recorded bytes → the objects a runtime really receives from the official SDKs.

The harness never builds an SDK object by hand: it hands the recorded status, headers and body to a
real SDK client whose HTTP transport replays them (``transport.py``), then calls the SDK method a
runtime would call for the api. The SDK parses the bytes exactly as it would parse a live response,
including its tolerance for fields it does not know yet. One client per provider per session.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.cassettes.store import RecordedResponse
from harness.sdk import anthropic_replay, gemini_replay, openai_replay
from harness.sdk.cassette_transport import cassette_transport
from harness.sdk.parsed import ParsedResponses
from harness.sdk.transport import ReplayTransport, StreamProbe, split_events

if TYPE_CHECKING:
    from harness.cassettes.exchange import Exchange

__all__ = ["SDK_CALLS", "SdkReplay", "StreamProbe", "e2e_client", "split_events", "warm_up"]


@dataclass(frozen=True)
class SdkCall:
    """How one api is called through its provider's SDK, and how inline stream events are framed."""

    provider: str
    call: Callable[[Any, dict[str, str], bool], Any]
    streams: bool
    sse: Callable[[list[Any]], bytes] | None
    request_body: Callable[[Any], Any] | None = None
    """How an e2e case reads the JSON body sent through the SDK (``None``: as sent)."""


SDK_CALLS: dict[str, SdkCall] = {
    "openai.chat": SdkCall("openai", openai_replay.chat, True, openai_replay.chat_sse),
    "openai.embeddings": SdkCall("openai", openai_replay.embeddings, False, None),
    "openai.images": SdkCall("openai", openai_replay.images, True, openai_replay.typed_sse),
    "openai.responses": SdkCall("openai", openai_replay.responses, True, openai_replay.typed_sse),
    "anthropic.messages": SdkCall("anthropic", anthropic_replay.messages, True, openai_replay.typed_sse),
    "gemini.generate_content": SdkCall(
        "gemini", gemini_replay.generate_content, True, gemini_replay.sse, gemini_replay.canonical_body
    ),
}

_PROVIDERS: dict[str, Callable[[], tuple[ReplayTransport, Any]]] = {
    "openai": openai_replay.new_replay,
    "anthropic": anthropic_replay.new_replay,
    "gemini": gemini_replay.new_replay,
}


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
    sdk_call = SDK_CALLS[api]
    replay, client = _PROVIDERS[sdk_call.provider]()
    attempts = [(RecordedResponse(200, {"content-type": ["application/json"]}, b"{}"), False)]
    if sdk_call.streams:
        attempts.append((RecordedResponse(200, {"content-type": ["text/event-stream"]}, b""), True))
    for recorded, stream in attempts:
        try:
            result = sdk_call.call(client, replay.prepare(recorded), stream)
            if stream:
                for _ in result:
                    pass
        except Exception:  # best effort: the case itself will show any real problem
            continue


def _gemini_replay_client(transport: Any, uris: list[str]) -> Any:
    return gemini_replay.client(transport, gemini_replay.api_version_of(uris[0]) if uris else None)


_E2E_CLIENTS: dict[str, tuple[Callable[[], Any], Callable[[Any, list[str]], Any], Callable[[Any], Any]]] = {
    "openai": (openai_replay.http_module, lambda t, _: openai_replay.client(t), openai_replay.record_client),
    "anthropic": (
        anthropic_replay.http_module,
        lambda t, _: anthropic_replay.client(t),
        anthropic_replay.record_client,
    ),
    "gemini": (gemini_replay.http_module, _gemini_replay_client, gemini_replay.record_client),
}


def e2e_client(provider: str, exchange: Exchange) -> Any:
    """A new official SDK client for ``provider`` whose HTTP is answered by ``exchange``: with the
    replay key and the provider's public base URL in replay, with the environment's key and base URL
    (read by the SDK itself, as a user's runtime would) when the exchange records."""
    http_module, replay_client, record_client = _E2E_CLIENTS[provider]
    transport = cassette_transport(http_module(), exchange)
    if exchange.records:
        return record_client(transport)
    uris = [i.request.uri for i in exchange.cassette.interactions] if exchange.cassette else []
    return replay_client(transport, uris)


_SHARED_CLIENTS: dict[str, tuple[ReplayTransport, Any]] = {}
"""One replay client per provider for the whole process: the transport answers each request by its
key, so sessions (nested pytester runs, the mutation workers' runs) can share them safely, and the
SDKs' client set-up is paid once."""


_PARSED = ParsedResponses()
"""Objects parsed from the same bytes are shared process-wide like the clients (each caller gets a copy)."""


class SdkReplay:
    """The per-session entry point; each provider's client is created on first use, once per process."""

    def _client(self, provider: str) -> tuple[ReplayTransport, Any]:
        if provider not in _SHARED_CLIENTS:
            _SHARED_CLIENTS[provider] = _PROVIDERS[provider]()
        return _SHARED_CLIENTS[provider]

    def _sdk_call(self, api: str) -> SdkCall:
        try:
            return SDK_CALLS[api]
        except KeyError:
            raise NotImplementedError(f"no SDK replay for {api}") from None

    def response_object(self, api: str, recorded: RecordedResponse) -> Any:
        """The SDK object a non-streaming call on ``api`` returns for ``recorded`` (a copy of the one the
        SDK made the first time it was given these bytes in this process)."""
        sdk_call = self._sdk_call(api)

        def parse() -> Any:
            replay, client = self._client(sdk_call.provider)
            return sdk_call.call(client, replay.prepare(recorded), False)

        return _PARSED.get(api, recorded, parse)

    def stream_object(self, api: str, recorded: RecordedResponse, probe: StreamProbe) -> Any:
        """The SDK stream object a streaming call on ``api`` returns for ``recorded``."""
        sdk_call = self._sdk_call(api)
        if not sdk_call.streams:
            raise NotImplementedError(f"{api} has no streaming call")
        replay, client = self._client(sdk_call.provider)
        return sdk_call.call(client, replay.prepare(recorded, probe), True)

    def inline_sse(self, api: str, events: list[Any]) -> bytes:
        """The SSE bytes the provider would send for inline stream ``events``."""
        sdk_call = self._sdk_call(api)
        if sdk_call.sse is None:
            raise NotImplementedError(f"{api} has no event stream")
        return sdk_call.sse(events)
