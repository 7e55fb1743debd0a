"""The replay transport: recorded responses served to a real SDK client, keyed per request.

Each prepared response gets a key; the SDK call carries it in an ``x-wireconf-replay`` header and the
transport answers that request, and only that one, with it. Keys keep the shared client safe when a
timed-out call is abandoned mid-stream, and with SDKs whose streams send their request lazily
(google-genai sends it on the first ``next()``).

Streams are served one event per transport chunk through a ``StreamProbe``, which counts the events
the SDK has read; that is how the harness sees whether a runtime processes a stream incrementally.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from wireconf.cassettes.store import RecordedResponse

REPLAY_HEADER = "x-wireconf-replay"
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


class ReplayTransport:
    """Serves prepared responses to the requests that carry their key."""

    def __init__(self, http: ModuleType) -> None:
        self.http = http
        self._prepared: dict[str, Any] = {}
        self._keys = itertools.count(1)
        self._lock = threading.Lock()
        self.transport = http.MockTransport(self._serve)

    def _serve(self, request: Any) -> Any:
        key = request.headers.get(REPLAY_HEADER)
        with self._lock:
            response = self._prepared.pop(key, None)
        if response is None:
            raise RuntimeError(f"wireconf replay: no response prepared for {request.method} {request.url}")
        return response

    def prepare(self, recorded: RecordedResponse, probe: StreamProbe | None = None) -> dict[str, str]:
        """Prepare one response; returns the headers the SDK call must send to receive it."""
        headers = [(k, v) for k, values in recorded.headers.items() for v in values]
        if probe is not None:
            stream_cls = type(
                "ReplayStream", (self.http.SyncByteStream,), {"__iter__": lambda _s: probe.chunks()}
            )
            response = self.http.Response(recorded.status, headers=headers, stream=stream_cls())
        else:
            response = self.http.Response(recorded.status, headers=headers, content=recorded.body)
        key = str(next(self._keys))
        with self._lock:
            self._prepared[key] = response
        return {REPLAY_HEADER: key}
