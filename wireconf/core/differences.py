"""One difference between an expectation and what a runtime did, as data.

A failing case's explanation is a list of lines; the lines that state a difference are ``Difference``
objects rather than bare text, so that the rest of the harness can act on them without parsing prose:
name the rule a difference breaks (``wireconf.judging.attribution``), waive one difference in a baseline
(``wireconf.judging.waivers``), and group failures that share a cause (``wireconf.reports.causes``).

A difference has a *subject* (what was compared: the request body, the result, the spans), a *path*
(``$.messages[0].content``, ``$`` for the whole value) and a *change*, one of ``CHANGES``. Its ``text``
is the line a person reads, e.g. ``$.stream: unexpected key (got false)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from wireconf.core.untyped import JSON

Change = Literal[
    "missing-key",  # a key the expectation has is absent
    "unexpected-key",  # a key the expectation does not have is present
    "value",  # same JSON type, another value
    "type",  # another JSON type
    "missing-item",  # an array is shorter than expected
    "unexpected-item",  # an array is longer than expected
    "raised",  # a value was expected, the runtime raised
    "returned",  # an exception was expected, the runtime returned
    "wrong-error",  # an exception of another type, or whose message does not match
    "not-incremental",  # a stream was buffered before its text was yielded
    "requests",  # e2e: the runtime sent no request, more than one, or one no recording answers
    "other",  # a failure stated only in prose (a refused recording)
    "provider-rejects",  # a request the provider's pinned contract rejects (judging.schema_check)
]
CHANGES: tuple[str, ...] = get_args(Change)

Subject = Literal["request", "result", "yielded-before-error", "spans"]
SUBJECTS: tuple[str, ...] = get_args(Subject)
"""``request``: a request body (wire, and the body an e2e runtime sent through the SDK); ``result``:
whatever the kind returns (a processor's result, the items a stream yields, an extraction, ...);
``yielded-before-error``: the items a stream yielded before its expected exception; ``spans``: the
``gen_ai.*`` attributes of a trace case's spans."""

_INDEX = re.compile(r"\[\d+\]")


def generic_path(path: str) -> str:
    """``path`` with every array index written ``[*]``: ``$.messages[2].content`` → ``$.messages[*].content``.
    Differences at the same place of different array items usually share their cause."""
    return _INDEX.sub("[*]", path)


@dataclass(frozen=True)
class Difference:
    """One difference: where (``subject``, ``path``), what kind of difference (``change``), the line a
    person reads (``text``), and what kind of value each side held (``shape``: e.g. ``array → string``
    for a type change, the exception's class for ``raised``), which groups like failures together."""

    subject: str
    path: str
    change: str
    text: str
    shape: str = ""
    variant: str | None = None
    """The adapter method that deviates when a case judges several (``process_async`` beside ``process``)."""
    indent: str = ""
    expected: JSON = field(default=None, compare=False, repr=False)
    """The expectation's value at ``path`` (``None`` for an ``unexpected-key`` / ``unexpected-item``):
    provider equivalences (``wireconf.providers.equivalence``) read it, e.g. ``"stream": false`` omitted."""
    actual: JSON = field(default=None, compare=False, repr=False)
    """The runtime's value at ``path`` (``None`` for a ``missing-key`` / ``missing-item``)."""
    constraint: tuple[str, str, str] | None = field(default=None, compare=False, repr=False)
    """A ``provider-rejects`` difference no member of whose union accepts the value: the one constraint of
    the member that matches best, its place, its reason and the JSON type of the value
    (``contract.Problem.best``), which a reproduction checks."""

    def __str__(self) -> str:
        return self.indent + self.text

    def indented(self, prefix: str = "  ") -> Difference:
        return replace(self, indent=prefix + self.indent)

    def of_variant(self, variant: str) -> Difference:
        return replace(self, variant=variant)

    @property
    def signature(self) -> str:
        """What failures with the same cause share: the place (array indices generalised), the change
        and the shape, but not values that vary from case to case."""
        shape = f" ({self.shape})" if self.shape else ""
        return f"{self.subject} {generic_path(self.path)}: {self.change}{shape}"


Line = str | Difference
"""A line of a failing case's explanation: prose, or a difference."""


def differences_in(lines: list[Line]) -> list[Difference]:
    return [line for line in lines if isinstance(line, Difference)]


def as_text(lines: list[Line]) -> list[str]:
    return [str(line) for line in lines]
