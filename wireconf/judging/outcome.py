"""What an adapter did with one case: the ``Outcome`` a kind's call reports, and the same as plain data
(``CanonicalOutcome``) for the verdict.

``context`` is what a kind observed besides the value, typed per kind (``Outcome[Exchange]`` for e2e,
``Outcome[Observed]`` for trace, ``Outcome[None]`` for the others): the kind's own judge reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from wireconf.core.stream_probe import StreamProbe
from wireconf.core.untyped import AdapterResult
from wireconf.judging.canonical import NotData, canonical

ContextT = TypeVar("ContextT")

Traceback = Callable[[], str]
"""The text of ``raised``'s traceback (the adapter's frames), made only when a failure shows it:
formatting a traceback reads and parses its source lines (about half a millisecond), and most of the
exceptions adapters raise are the ones their cases expect."""


def no_traceback() -> str:
    """The traceback of an outcome whose adapter raised nothing."""
    return ""


@dataclass
class Outcome(Generic[ContextT]):
    """What the adapter did with one case, before canonicalisation."""

    value: AdapterResult = None
    raised: BaseException | None = None
    traceback: Traceback = no_traceback
    yielded: list[AdapterResult] = field(default_factory=list)
    probe: StreamProbe | None = None
    variants: list[tuple[str, Outcome[ContextT]]] = field(default_factory=list)
    """Other methods judged against the same expectation (``process_async`` beside ``process``)."""
    context: ContextT | None = None
    """What the kind observed besides the value, for its own ``judge`` (e2e: the HTTP exchange)."""


@dataclass
class CanonicalOutcome(Generic[ContextT]):
    """An ``Outcome`` after canonicalisation: plain data only."""

    value: AdapterResult
    raised: BaseException | None
    traceback: Traceback
    yielded: list[AdapterResult]
    probe: StreamProbe | None
    variants: list[tuple[str, CanonicalOutcome[ContextT]]] = field(default_factory=list)
    context: ContextT | None = None


def canonical_outcome(outcome: Outcome[ContextT], where: str = "") -> CanonicalOutcome[ContextT]:
    """``outcome`` (and its variants) as plain data; raises ``NotData`` naming the variant at fault."""
    try:
        value, yielded = canonical(outcome.value), canonical(outcome.yielded)
    except NotData as exc:
        if where:
            exc.args = (f"{where}: {exc}",)
        raise
    return CanonicalOutcome(
        value=value,
        raised=outcome.raised,
        traceback=outcome.traceback,
        yielded=yielded,
        probe=outcome.probe,
        variants=[(label, canonical_outcome(variant, label)) for label, variant in outcome.variants],
        context=outcome.context,
    )
