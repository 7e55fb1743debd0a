"""The verdict on one case: its canonical outcome against its expectation.

Returns the lines of the explanation when the case fails, ``[]`` when it passes. Exceptions are
outcomes like any other: a case that expects a value fails when the adapter raises (and shows the
traceback), a case that expects an error fails when the adapter returns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from harness.corpus.model import CaseBase, ExpectedError
from harness.corpus.yaml_source import to_plain
from harness.judging.canonical import tool_calls_as_expected
from harness.judging.compare import render_diff, show, strict_equal
from harness.judging.matchers import apply_matchers
from harness.judging.outcome import CanonicalOutcome


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


def _expected_value(case: CaseBase, outcome: CanonicalOutcome[Any], noun: str) -> list[str]:
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


def _expected_error(expected: ExpectedError, outcome: CanonicalOutcome[Any], noun: str) -> list[str]:
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


def _incremental(outcome: CanonicalOutcome[Any]) -> list[str]:
    """Text items must be yielded as their events arrive. The last one may come after the final event
    was read (Gemini streams have no closing event after their last text chunk); every earlier one
    yielded only once the whole stream had been read means the processor buffered the stream."""
    probe = outcome.probe
    if probe is None or outcome.raised is not None:
        return []
    text_reads = [
        (i, read)
        for i, (item, read) in enumerate(zip(outcome.yielded, probe.read_at_yield, strict=False))
        if isinstance(item, str)
    ]
    late = [i for i, read in text_reads[:-1] if read >= probe.total]
    if not late:
        return []
    return [
        f"not incremental: text item(s) {late} were yielded only after all {probe.total} stream events "
        "had been read (the stream was buffered before processing)"
    ]


def judge(case: CaseBase, outcome: CanonicalOutcome[Any], noun: str) -> list[str]:
    """Why the case fails, or ``[]`` when it passes."""
    if case.expect_error is not None:
        return _expected_error(case.expect_error, outcome, noun)
    lines = _expected_value(case, outcome, noun)
    if getattr(case, "incremental", False):
        lines += _incremental(outcome)
    return lines


Judge = Callable[[Any, CanonicalOutcome[Any], str], list[str]]


def judge_variants(
    case: CaseBase, outcome: CanonicalOutcome[Any], noun: str, method: str, judge_one: Judge | None = None
) -> list[str]:
    """``judge_one`` (a kind's own judge, else ``judge``) of the outcome and of each variant
    (``process_async`` beside ``process``): with variants, each method that deviates is named, so that
    a maintainer sees which one failed."""
    judge_one = judge_one or judge
    lines = judge_one(case, outcome, noun)
    if not outcome.variants:
        return lines
    out = [f"{method}: " + lines[0], *lines[1:]] if lines else []
    deviating = []
    for label, variant in outcome.variants:
        variant_lines = judge_one(case, variant, noun)
        if variant_lines:
            deviating.append(label)
            out += [f"{label}: " + variant_lines[0], *variant_lines[1:]]
    if deviating and not lines:
        out.insert(0, f"{method} conforms; {', '.join(deviating)} deviates:")
    return out
