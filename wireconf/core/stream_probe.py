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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

_EVENT_END = re.compile(rb"\r?\n\r?\n")

SETTLE_SPAN = 0.05
"""How long (seconds) a runtime must stay settled (every byte read, its threads blocked, no CPU used)
before the gate takes it as waiting for more: longer than a wake-up's latency (a thread woken by the
bytes it waited for is runnable at once)."""


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

    Over HTTP the emulator's hold-last-event gate (``hold``) writes a stream's last event only once the
    runtime took all the others: one that processes as it reads has yielded by then, one that buffers
    can only yield after. ``released`` is set by each yield (the gate's clock, where it has no better
    signal, waits on it).
    """

    events: list[bytes]
    read: int = 0
    read_at_yield: list[int] = field(default_factory=list)
    released: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)
    stalled: bool = False
    """The gate wrote the last event with no item yielded before it (the runtime settled without one, or
    the clock gate's stall interval passed)."""
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

    def hold(
        self,
        stall: float,
        quiet: float,
        settled: Callable[[float], bool] | None = None,
        limit: float = 0.0,
    ) -> bool:
        """Wait (the emulator's writer, before the last event) until the runtime has taken all it was
        sent; whether items were yielded by then.

        ``settled(span)`` (the emulator's watch over the connection, ``wireconf.emulator.settle``) says
        whether the runtime, over the next ``span`` seconds, had read every byte written and its threads
        stayed stopped: once it has, with items yielded, every item it could make without the last
        event is counted before it (``read_at_yield``). With none yet, it gets ``stall`` seconds more
        from then for an item (a runtime that hands its bytes to a timer, a debounce, yields within
        that), and counts as buffering only if none came and it is still settled: a pause or a loaded
        machine keeps a thread runnable and never counts, so the verdict follows what the runtime did,
        not how long it took (its housekeeping timers, an HTTP client's ticks, do not hold it up).
        Polled until ``limit`` seconds pass; past it the case is left unjudged (an error), never a
        verdict.

        Without it (the kernel does not show the connection) the clock decides: items yielded and then
        none for ``quiet`` seconds, or ``stall`` seconds with none. Not the first item alone: the
        runtime's HTTP library reads the events it was sent in a burst and one that processes as it
        reads yields that burst's items one after another; one that yields an early item and then
        buffers gets the last event after ``quiet`` and is still late."""
        if settled is not None:
            deadline = time.monotonic() + limit
            while time.monotonic() < deadline:
                if not settled(SETTLE_SPAN):
                    continue
                if not self.read_at_yield:
                    # settled with nothing yielded: a stall's time for an item its own timer makes
                    self.released.clear()
                    if self.released.wait(stall) or not settled(SETTLE_SPAN):
                        continue  # an item came, or it is working: look again
                self.released.set()
                self.stalled = not self.read_at_yield
                return not self.stalled
            self.unjudged = (
                f"the runtime neither blocked for more of the stream nor stopped working in {limit:.0f} s "
                "with all but its last event sent: whether it processes the stream as it reads cannot be "
                "told (a thread of its process kept running)"
            )
            self.released.set()
            return bool(self.read_at_yield)
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
