"""The one error hierarchy of the harness: every error about something a person gave it (a case file, a
cassette, ``--impl``, a report, an extension) is a ``WireconfError`` that says where and what to do.

``where`` is built from the file, line and case the error is about (each optional); ``hint`` is the
next step for the person reading it. Both are kept as attributes, so that a caller (the pytest items,
the CLI) can show them its own way, and ``str(error)`` reads ``<where>: <message>`` plus the hint.
An error raised without them reads exactly as its message, as before the hierarchy existed.
"""

from __future__ import annotations

from pathlib import Path


class WireconfError(Exception):
    """Base of the harness's errors: a message, where it applies, and what to do about it."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        line: int | None = None,
        case: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.path = path
        self.line = line
        self.case = case
        self.hint = hint
        super().__init__(message)

    @property
    def message(self) -> str:
        """The message alone (``args[0]``: a caller that rewrites ``args`` rewrites the message)."""
        return str(self.args[0]) if self.args else ""

    @property
    def where(self) -> str:
        """``file:line (case id)``, as much of it as is known; empty when nothing is."""
        place = "" if self.path is None else f"{self.path}" + (f":{self.line}" if self.line else "")
        if self.case:
            place = f"{place} (case {self.case})" if place else f"case {self.case}"
        return place

    def __str__(self) -> str:
        where = self.where
        text = f"{where}: {self.message}" if where else self.message
        return f"{text}\n  hint: {self.hint}" if self.hint else text


class ExtensionError(WireconfError):
    """An installed extension (entry point ``wireconf.providers`` / ``wireconf.kinds``) is unusable."""


class BlessError(WireconfError):
    """A case that cannot be blessed (``wireconf bless``); the message names it."""


class CaseInputError(WireconfError):
    """The case's inputs cannot be prepared (missing cassette, error response, …): a harness error,
    never a verdict."""


class ContractError(WireconfError):
    """The adapter broke the adapter contract (a result of the wrong type, a method it lacks): no verdict."""
