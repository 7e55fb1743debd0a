"""A replayed event stream, counted as it is read: the events of a recorded SSE body
(``split_events``) and the ``StreamProbe`` that counts those the SDK has read when the runtime yields.

A leaf module (standard library only) because three layers need it: the replay transport
(``wireconf.sdk.transport``) serves through it, an e2e case's HTTP traffic (``wireconf.cassettes.exchange``)
keeps one per stream, and an outcome (``wireconf.judging.outcome``) carries it to the verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

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
    unjudged: str | None = None
    """Why what was read at each yield cannot be known (a runtime that counts its own reading): an
    ``incremental`` case is then an error, never a verdict on the runtime's word."""

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
