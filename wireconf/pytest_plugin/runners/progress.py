"""Where a case is in the runner process, told the pytest process without a message."""

from __future__ import annotations

import mmap
import struct
import time


class Progress:
    """Where the runner process marks the moment it starts a case and the moment the case's adapter call
    starts (``--case-timeout`` runs from there, the preparation has a budget of its own): a shared page,
    read by the pytest process only when it has to decide on a time limit, so that a case costs no
    message for it.

    Each mark is a slot of (case number, time): the runner writes the time, then the number; x86 and
    ARM keep two stores to one page in order for a reader that sees the second."""

    _SLOT = struct.Struct("=Qd")

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, 3 * self._SLOT.size)  # anonymous and shared: a fork sees the same page

    def _mark(self, slot: int, case: int) -> None:
        offset = slot * self._SLOT.size
        struct.pack_into("=d", self._page, offset + 8, time.monotonic())
        struct.pack_into("=Q", self._page, offset, case)

    def started(self, case: int) -> None:
        self._mark(0, case)

    def called(self, case: int) -> None:
        self._mark(1, case)

    def judging(self, case: int) -> None:
        self._mark(2, case)

    def started_at(self, case: int) -> float | None:
        """When the runner started case number ``case``, while it is the latest it started."""
        seen, at = self._SLOT.unpack_from(self._page, 0)
        return at if seen == case else None

    def of(self, case: int) -> tuple[str, float | None]:
        """Where case number ``case`` is: ``("judging", t)`` (the adapter call returned, the harness
        judges since ``t``), ``("called", t)`` (its adapter call started at ``t``, on
        ``time.monotonic()``, the same clock in both processes), ``("preparing", t)``, ``("answered",
        None)`` (a later case started: its answer is on the pipe) or ``("queued", None)``."""
        started = self._SLOT.unpack_from(self._page, 0)[0]
        if started > case:
            return "answered", None
        seen, at = self._SLOT.unpack_from(self._page, 2 * self._SLOT.size)
        if seen == case:
            return "judging", at
        seen, at = self._SLOT.unpack_from(self._page, self._SLOT.size)
        if seen == case:
            return "called", at
        at = self.started_at(case)
        return ("queued", None) if at is None else ("preparing", at)
