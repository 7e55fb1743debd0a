"""A replayed event stream, counted as it is read: the events of a recorded SSE body
(``split_events``) and the ``StreamProbe`` that counts those the SDK has read when the runtime yields.

A leaf module (standard library only) because three layers need it: the replay transport
(``wireconf.sdk.transport``) serves through it, an e2e case's HTTP traffic (``wireconf.cassettes.exchange``)
keeps one per stream, and an outcome (``wireconf.judging.outcome``) carries it to the verdict.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

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
    """Counts the events of one replayed stream as the SDK reads them (in memory) or as the emulator
    writes them (over HTTP, where the socket cannot say what was read: ``wireconf.emulator``).

    ``released`` is set by the first yield: the emulator's hold-last-event gate waits on it before it
    writes the stream's last event, so that a runtime that processes as it reads yields with the last
    event still unsent, and one that buffers can only yield once the gate gave up waiting (``stalled``).
    """

    events: list[bytes]
    read: int = 0
    read_at_yield: list[int] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)
    stalled: bool = False
    """The gate wrote the last event because no item came in its stall interval, not because one did."""
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
        """Called by the harness each time the adapter yields an item: notes how many events were read
        (written) by then, and releases a held last event."""
        self.read_at_yield.append(self.read)
        self.released.set()

    def hold(self, stall: float, quiet: float) -> bool:
        """Wait (the emulator's writer, before the last event) until items were yielded and then none
        came for ``quiet`` seconds, or until ``stall`` seconds passed with none; whether items came.

        Not the first item alone: the runtime's HTTP library reads the events it was sent in a burst,
        and a runtime that processes as it reads yields the items of that burst one after another; the
        last event is written once it has stopped yielding (it waits for more), so that every item it
        could make without the last event is counted before it (``read_at_yield``). A runtime that
        yields one early item and then buffers gets the last event after ``quiet`` and is still late."""
        deadline = time.monotonic() + stall
        if not self.released.wait(stall):
            self.stalled = True
            return False
        while True:
            seen = len(self.read_at_yield)
            self.released.clear()
            if len(self.read_at_yield) != seen:
                continue
            left = deadline - time.monotonic()
            if left <= 0 or not self.released.wait(min(quiet, left)):
                self.released.set()
                return True

    def __getstate__(self) -> dict[str, Any]:
        """Copied or pickled with an outcome: the counts travel, the gate (a lock) does not."""
        state = dict(self.__dict__)
        state["released"] = self.released.is_set()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        released = threading.Event()
        if state.pop("released", False):
            released.set()
        self.__dict__.update(state, released=released)
