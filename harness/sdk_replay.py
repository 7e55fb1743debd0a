"""Recorded bytes → the objects a runtime really receives from the official SDKs.

The harness never builds an SDK object by hand: it hands the recorded status, headers and body to a
real SDK client whose HTTP transport is an in-memory replay (the SDK's own ``MockTransport`` of the
HTTP library it uses), then calls the SDK method a runtime would call. The SDK parses the bytes exactly
as it would parse a live response, including its tolerance for fields it does not know yet.

Streams are served one event per transport chunk through a ``StreamProbe``, which counts the events
the SDK has read; that is how the harness sees whether a runtime processes a stream incrementally.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from harness.cassettes import RecordedResponse

_EVENT_END = re.compile(rb"\r?\n\r?\n")


def split_events(body: bytes) -> list[bytes]:
    """Split an SSE body into events, each keeping its own bytes (the blank line included)."""
    events, start = [], 0
    for match in _EVENT_END.finditer(body):
        events.append(body[start : match.end()])
        start = match.end()
    if body[start:].strip():
        events.append(body[start:])
    return events


def openai_sse(events: list[Any]) -> bytes:
    """OpenAI's SSE framing for inline events: one ``data:`` line each, then ``data: [DONE]``."""
    lines = [f"data: {json.dumps(e, ensure_ascii=False, separators=(',', ':'))}\n\n" for e in events]
    return ("".join(lines) + "data: [DONE]\n\n").encode("utf-8")


@dataclass
class StreamProbe:
    """Counts the events of one replayed stream as the SDK reads them."""

    events: list[bytes]
    read: int = 0
    read_at_yield: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.events)

    def chunks(self) -> Iterator[bytes]:
        for event in self.events:
            self.read += 1
            yield event

    def mark_yield(self) -> None:
        """Called by the harness each time the adapter yields an item."""
        self.read_at_yield.append(self.read)


def http_module_of(sdk_client_class: type) -> ModuleType:
    """The HTTP library (``httpx`` or ``httpx2``) a SDK's default client is built on."""
    for base in sdk_client_class.__mro__[1:]:
        top = base.__module__.split(".")[0]
        if top.startswith("httpx"):
            return sys.modules[top]
    raise RuntimeError(f"cannot tell which HTTP library {sdk_client_class!r} uses")


class _Replay:
    """One SDK client per provider, reused for every case; the next response is set before each call."""

    def __init__(self, http: ModuleType) -> None:
        self.http = http
        self._next: Any = None

    def transport(self) -> Any:
        return self.http.MockTransport(self._serve)

    def _serve(self, request: Any) -> Any:
        response, self._next = self._next, None
        if response is None:
            raise RuntimeError(f"wireconf replay: no response prepared for {request.method} {request.url}")
        return response

    def prepare(self, recorded: RecordedResponse, probe: StreamProbe | None = None) -> None:
        headers = [(k, v) for k, values in recorded.headers.items() for v in values]
        if probe is not None:
            stream_cls = type(
                "ReplayStream", (self.http.SyncByteStream,), {"__iter__": lambda _self: probe.chunks()}
            )
            self._next = self.http.Response(recorded.status, headers=headers, stream=stream_cls())
        else:
            self._next = self.http.Response(recorded.status, headers=headers, content=recorded.body)


class OpenAIReplay(_Replay):
    """``openai.OpenAI`` over a replay transport."""

    def __init__(self) -> None:
        import openai

        super().__init__(http_module_of(openai.DefaultHttpxClient))
        self.client = openai.OpenAI(
            api_key="wireconf-replay",
            base_url="https://api.openai.com/v1",
            http_client=self.http.Client(transport=self.transport()),
            max_retries=0,
        )

    def chat_completion(self, recorded: RecordedResponse) -> Any:
        """A ``ChatCompletion``, as ``client.chat.completions.create()`` returns it."""
        self.prepare(recorded)
        return self.client.chat.completions.create(model="wireconf-replay", messages=[])

    def chat_stream(self, recorded: RecordedResponse, probe: StreamProbe) -> Any:
        """An ``openai.Stream`` of ``ChatCompletionChunk``, as ``create(stream=True)`` returns it."""
        self.prepare(recorded, probe)
        return self.client.chat.completions.create(model="wireconf-replay", messages=[], stream=True)


class SdkReplay:
    """The per-session entry point: builds each provider's replay client on first use."""

    def __init__(self) -> None:
        self._openai: OpenAIReplay | None = None

    @property
    def openai(self) -> OpenAIReplay:
        if self._openai is None:
            self._openai = OpenAIReplay()
        return self._openai

    def response_object(self, api: str, recorded: RecordedResponse) -> Any:
        """The SDK object a non-streaming call on ``api`` returns for ``recorded``."""
        if api == "openai.chat":
            return self.openai.chat_completion(recorded)
        raise NotImplementedError(f"no SDK replay for {api} responses yet")

    def stream_object(self, api: str, recorded: RecordedResponse, probe: StreamProbe) -> Any:
        """The SDK stream object a streaming call on ``api`` returns for ``recorded``."""
        if api == "openai.chat":
            return self.openai.chat_stream(recorded, probe)
        raise NotImplementedError(f"no SDK replay for {api} streams yet")

    def inline_sse(self, api: str, events: list[Any]) -> bytes:
        """The SSE bytes a provider would send for inline stream ``events``."""
        if api.startswith("openai."):
            return openai_sse(events)
        raise NotImplementedError(f"no inline stream framing for {api} yet")
