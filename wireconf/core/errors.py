"""The one error hierarchy of the harness: every error it raises about something it was given (a case
file, a cassette, ``--impl``, a runtime, a report, an extension) is a ``WireconfError`` that says where
and what to do.

``where`` is built from the file, line and case the error is about (each optional, kept in ``at``);
``hint`` is the next step for the person reading it. Both are attributes, so that a caller (the pytest
items, the CLI) can show them its own way, and ``str(error)`` reads ``<where>: <message>`` and then the
hint. An error raised with neither reads exactly as its message.

The classes live with the code that raises them (``CassetteError`` in ``wireconf.cassettes.store``,
``ImplError`` in ``wireconf.pytest_plugin.impl_loader``, …); the ones raised across packages live here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Where:
    """Where an error applies: a file, a line in it, a case; each may be unknown."""

    path: Path | str | None = None
    line: int | None = None
    case: str | None = None

    def __str__(self) -> str:
        place = "" if self.path is None else f"{self.path}" + (f":{self.line}" if self.line else "")
        if self.case:
            place = f"{place} (case {self.case})" if place else f"case {self.case}"
        return place


class WireconfError(Exception):
    """Base of the harness's errors: a message, where it applies, and what to do about it."""

    default_hint: str | None = None
    """The hint of every error of the class that is raised without one (what to do is the same whatever
    went wrong, e.g. rewrite a baseline from a run)."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        line: int | None = None,
        case: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.at = Where(path, line, case)
        self.hint = hint if hint is not None else self.default_hint
        super().__init__(message)

    @property
    def message(self) -> str:
        """The message alone (``args[0]``: a caller that rewrites ``args`` rewrites the message)."""
        return str(self.args[0]) if self.args else ""

    @property
    def where(self) -> str:
        """``file:line (case id)``, as much of it as is known; empty when nothing is."""
        return str(getattr(self, "at", "") or "")

    def __str__(self) -> str:
        where = self.where
        text = f"{where}: {self.message}" if where else self.message
        hint = getattr(self, "hint", None)
        return f"{text}\n  hint: {hint}" if hint else text


class Verdict(Exception):
    """Base of the verdicts: a case that ran and whose outcome was judged against its expectation
    (``CaseFailed``). Not a ``WireconfError``: nothing the user gave the harness was wrong, the runtime
    under test differs from the spec; shown, like an error, as its own text, without a traceback."""


class ExtensionError(WireconfError):
    """An installed extension (entry point ``wireconf.providers`` / ``wireconf.kinds``) is unusable."""


class BlessError(WireconfError):
    """A case that cannot be blessed (``wireconf bless``); the message names it."""


class CaseInputError(WireconfError):
    """The case's inputs cannot be prepared (missing cassette, error response, …): a harness error,
    never a verdict."""


class ContractError(WireconfError):
    """The adapter broke the adapter contract (a result of the wrong type, a method it lacks): no verdict."""


class NotJudged(WireconfError):
    """What happened is not a verdict on the runtime, so the case is an error of its own, never a failure
    charged to a rule: the exec protocol broken inside a call (a reply for another call, stray output on
    stdout), a recording refused, an input the harness cannot hand to this runtime. Raised by the
    harness's side of a call (an exec proxy, a kind's judge); ``finish_case`` turns it into an error
    wherever it surfaces, even as the exception an adapter's call seems to have raised."""
