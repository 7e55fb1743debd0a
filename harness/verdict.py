"""The verdict on one case: its canonical outcome against its expectation.

Returns the lines of the explanation when the case fails, ``[]`` when it passes. Exceptions are
outcomes like any other: a case that expects a value fails when the adapter raises (and shows the
traceback), a case that expects an error fails when the adapter returns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from harness.canonical import tool_calls_as_expected
from harness.case_model import CaseBase, ExpectedError
from harness.compare import render_diff, show, strict_equal
from harness.matchers import apply_matchers
from harness.sdk import StreamProbe
from harness.yaml_source import to_plain


@dataclass
class CanonicalOutcome:
    """An ``Outcome`` after canonicalisation: plain data only."""

    value: Any
    raised: BaseException | None
    traceback: str
    yielded: list[Any]
    probe: StreamProbe | None
    context: Any = None


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _resolve(expected: Any, actual: Any) -> tuple[Any, Any]:
    """Read tool calls the way the expectation holds them, then resolve declared matchers."""
    return apply_matchers(expected, tool_calls_as_expected(expected, actual))


def exception_matches(exc: BaseException, expected: ExpectedError) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__} | {
        f"{cls.__module__}.{cls.__qualname__}" for cls in type(exc).__mro__
    }
    if expected.type not in names:
        return False
    return expected.match is None or re.search(expected.match, str(exc)) is not None


def _describe_exception(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}"


def _expected_value(case: CaseBase, outcome: CanonicalOutcome, noun: str) -> list[str]:
    if outcome.raised is not None:
        lines = [f"expected a {noun}, but the adapter raised {_describe_exception(outcome.raised)}"]
        if outcome.yielded:
            lines.append(f"  yielded before raising: {show(outcome.yielded)}")
        lines.append("  traceback (adapter frames):")
        lines.append(_indent(outcome.traceback))
        return lines
    expected, actual = _resolve(to_plain(case.expect), outcome.value)
    if strict_equal(expected, actual, case.tolerance):
        return []
    diff = render_diff(expected, actual, case.tolerance)
    return [f"the {noun} differs from the expectation:", *("  " + line for line in diff)]


def _expected_error(expected: ExpectedError, outcome: CanonicalOutcome, noun: str) -> list[str]:
    wanted = expected.type + (f" matching /{expected.match}/" if expected.match else "")
    if outcome.raised is None:
        return [f"expected the adapter to raise {wanted}, but it returned a {noun}: {show(outcome.value)}"]
    lines: list[str] = []
    if not exception_matches(outcome.raised, expected):
        lines += [
            f"expected the adapter to raise {wanted}, but it raised {_describe_exception(outcome.raised)}",
            "  traceback (adapter frames):",
            _indent(outcome.traceback),
        ]
    yielded = to_plain(expected.yielded)
    yielded, actual = _resolve(yielded, outcome.yielded) if yielded is not None else (None, outcome.yielded)
    if yielded is not None and not strict_equal(yielded, actual):
        lines.append("the items yielded before the exception differ from the expectation:")
        lines += ["  " + d for d in render_diff(yielded, actual)]
    return lines


def _incremental(outcome: CanonicalOutcome) -> list[str]:
    probe = outcome.probe
    if probe is None or outcome.raised is not None:
        return []
    late = [
        i
        for i, (item, read) in enumerate(zip(outcome.yielded, probe.read_at_yield, strict=False))
        if isinstance(item, str) and read >= probe.total
    ]
    if not late:
        return []
    return [
        f"not incremental: text item(s) {late} were yielded only after all {probe.total} stream events "
        "had been read (the stream was buffered before processing)"
    ]


def judge(case: CaseBase, outcome: CanonicalOutcome, noun: str) -> list[str]:
    """Why the case fails, or ``[]`` when it passes."""
    if case.expect_error is not None:
        return _expected_error(case.expect_error, outcome, noun)
    lines = _expected_value(case, outcome, noun)
    if getattr(case, "incremental", False):
        lines += _incremental(outcome)
    return lines
