"""Recorded bytes → the objects a runtime really receives from the official SDKs.

The harness never builds an SDK object by hand: it hands the recorded status, headers and body to a
real SDK client whose HTTP transport replays them (``transport.py``), then calls the SDK method a
runtime would call for the api. The SDK parses the bytes exactly as it would parse a live response,
including its tolerance for fields it does not know yet. One client per provider per session.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.cassettes import RecordedResponse
from harness.sdk import anthropic_replay, gemini_replay, openai_replay
from harness.sdk.transport import ReplayTransport, StreamProbe, split_events

__all__ = ["SDK_CALLS", "SdkReplay", "StreamProbe", "split_events"]


@dataclass(frozen=True)
class SdkCall:
    """How one api is called through its provider's SDK, and how inline stream events are framed."""

    provider: str
    call: Callable[[Any, dict[str, str], bool], Any]
    streams: bool
    sse: Callable[[list[Any]], bytes] | None


SDK_CALLS: dict[str, SdkCall] = {
    "openai.chat": SdkCall("openai", openai_replay.chat, True, openai_replay.chat_sse),
    "openai.embeddings": SdkCall("openai", openai_replay.embeddings, False, None),
    "openai.images": SdkCall("openai", openai_replay.images, True, openai_replay.typed_sse),
    "openai.responses": SdkCall("openai", openai_replay.responses, True, openai_replay.typed_sse),
    "anthropic.messages": SdkCall("anthropic", anthropic_replay.messages, True, openai_replay.typed_sse),
    "gemini.generate_content": SdkCall("gemini", gemini_replay.generate_content, True, gemini_replay.sse),
}

_PROVIDERS: dict[str, Callable[[], tuple[ReplayTransport, Any]]] = {
    "openai": openai_replay.new_replay,
    "anthropic": anthropic_replay.new_replay,
    "gemini": gemini_replay.new_replay,
}


class SdkReplay:
    """The per-session entry point; each provider's client is created on first use."""

    def __init__(self) -> None:
        self._clients: dict[str, tuple[ReplayTransport, Any]] = {}

    def _client(self, provider: str) -> tuple[ReplayTransport, Any]:
        if provider not in self._clients:
            self._clients[provider] = _PROVIDERS[provider]()
        return self._clients[provider]

    def _sdk_call(self, api: str) -> SdkCall:
        try:
            return SDK_CALLS[api]
        except KeyError:
            raise NotImplementedError(f"no SDK replay for {api}") from None

    def response_object(self, api: str, recorded: RecordedResponse) -> Any:
        """The SDK object a non-streaming call on ``api`` returns for ``recorded``."""
        sdk_call = self._sdk_call(api)
        replay, client = self._client(sdk_call.provider)
        return sdk_call.call(client, replay.prepare(recorded), False)

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
