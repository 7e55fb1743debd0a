"""The run's order, as the run loop writes it and the runners read it to decide what they start early."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wireconf.pytest_plugin.case_host import RunnableCase


class Plan:
    """The cases in the order pytest runs them, written by the run loop (``active.pytest_runtestloop``
    once with every item; an xdist worker, handed its items as it goes, one ``nextitem`` at a time) and
    read by the runner, which decides what it starts early. Each entry is a case whose setup runs it
    unless its adapter's answer decides otherwise, or ``None``: an item pytest may or may not run a case
    for (a skip or xfail mark decides it before its setup), past which nothing starts early. Items that
    never ask for a case (unsupported, corpus problems, other plugins' tests) are not in it."""

    def __init__(self) -> None:
        self._entries: list[RunnableCase | None] = []
        self._at: dict[int, int] = {}
        """Each case's place, by the item object (``id``: the entries keep it alive, and ``after``
        checks it is the very item): pytest builds an item's ``nodeid`` anew on every read."""

    def extend(self, entries: Iterable[RunnableCase | None]) -> None:
        for entry in entries:
            if entry is not None:
                self._at[id(entry)] = len(self._entries)
            self._entries.append(entry)

    def last(self) -> RunnableCase | None:
        return self._entries[-1] if self._entries else None

    def after(self, item: RunnableCase, k: int) -> RunnableCase | None:
        """The case ``k`` entries after ``item``'s, if no barrier comes first and it is planned at all."""
        at = self._at.get(id(item))
        if at is None or self._entries[at] is not item:
            return None
        for entry in self._entries[at + 1 : at + k + 1]:
            if entry is None:
                return None
        return self._entries[at + k] if at + k < len(self._entries) else None

    def following(self, item: RunnableCase, start: int, count: int) -> list[RunnableCase]:
        """``after(item, k)`` for ``k`` from ``start`` on, at most ``count`` of them, up to the first that
        is ``None``: in one pass over the entries (``after`` for each ``k`` passes over ``k`` of them)."""
        at = self._at.get(id(item))
        if at is None or self._entries[at] is not item or start < 1:
            return []
        found: list[RunnableCase] = []
        for k, entry in enumerate(self._entries[at + 1 : at + start + count], 1):
            if entry is None:
                break
            if k >= start:
                found.append(entry)
        return found
