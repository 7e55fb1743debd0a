"""The verdict on one case: its canonical outcome against its expectation.

Returns the lines of the explanation when the case fails, ``[]`` when it passes. Exceptions are
outcomes like any other: a case that expects a value fails when the adapter raises (and shows the
traceback), a case that expects an error fails when the adapter returns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from wireconf.cassettes.compare import differences, show, shown, strict_equal
from wireconf.core.differences import Difference, Line, Subject
from wireconf.core.error_categories import categories_of, shown_name
from wireconf.core.errors import NotJudged
from wireconf.core.report_text import machine_free
from wireconf.core.untyped import JSON
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.model import CaseBase, ExpectedError
from wireconf.judging.canonical import tool_calls_as_expected
from wireconf.judging.listed import listed_only
from wireconf.judging.matchers import apply_matchers
from wireconf.judging.outcome import CanonicalOutcome
from wireconf.judging.recorded_values import plain_expectation


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _resolve(expected: JSON, actual: JSON) -> tuple[Any, Any]:
    """Read tool calls the way the expectation holds them, then resolve declared matchers."""
    return apply_matchers(expected, tool_calls_as_expected(expected, actual))


def _class_matches(exc: BaseException, name: str) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__} | {
        f"{cls.__module__}.{cls.__qualname__}" for cls in type(exc).__mro__
    }
    return name in names


def category_matches(exc: BaseException, expected: ExpectedError) -> bool:
    """Whether ``exc`` stands for the expected category (``wireconf.core.error_categories``: declared by the
    runtime, else mapped from its classes) and, when one is expected, carries the expected status."""
    found = categories_of(exc)
    if expected.category not in found.categories:
        return False
    return expected.status is None or found.status == expected.status


def exception_matches(exc: BaseException, expected: ExpectedError) -> bool:
    if expected.category is not None:
        if not category_matches(exc, expected):
            return False
    elif expected.type is None or not _class_matches(exc, expected.type):
        return False
    return expected.match is None or re.search(expected.match, str(exc)) is not None


def _describe_exception(exc: BaseException) -> str:
    return f"{shown_name(exc)}: {machine_free(str(exc))}"


def _raised(outcome: CanonicalOutcome[Any], text: str, subject: Subject, expected: JSON) -> Difference:
    """A raise where ``expected`` (what ``subject`` should have been) was expected: the rules that
    require that value are the ones it breaks (``wireconf.judging.attribution``)."""
    assert outcome.raised is not None
    return Difference(subject, "$", "raised", text, type(outcome.raised).__qualname__, expected=expected)


def _expected_value(
    case: CaseBase, outcome: CanonicalOutcome[Any], noun: str, subject: Subject
) -> list[Line]:
    if outcome.raised is not None:
        text = f"expected a {noun}, but the adapter raised {_describe_exception(outcome.raised)}"
        lines: list[Line] = [_raised(outcome, text, subject, to_plain(case.expect))]
        if outcome.yielded:
            lines.append(f"  yielded before raising: {show(outcome.yielded)}")
        lines.append("  traceback (adapter frames):")
        lines.append(_indent(outcome.traceback()))
        return lines
    listed = case.expect_keys == "listed"
    expected, _, matchers = plain_expectation(case.expect)  # one walk per case, whatever reads it
    value = listed_only(expected, outcome.value) if listed else outcome.value
    resolved = apply_matchers(expected, tool_calls_as_expected(expected, value), matchers)  # as _resolve
    if strict_equal(*resolved, case.tolerance):
        return []
    diff = differences(expected, value, case.tolerance, subject, resolve=_resolve)
    scope = " (on the keys it lists: expect_keys: listed)" if listed else ""
    return [f"the {noun} differs from the expectation{scope}:", *shown(diff)]


def _expected_error(expected: ExpectedError, outcome: CanonicalOutcome[Any], noun: str) -> list[Line]:
    kind = f"an error of category {expected.label}" if expected.category else expected.label
    wanted = kind + (f" matching /{expected.match}/" if expected.match else "")
    if outcome.raised is None:
        text = f"expected the adapter to raise {wanted}, but it returned a {noun}: {show(outcome.value)}"
        return [Difference("result", "$", "returned", text, expected.label)]
    lines: list[Line] = []
    if not exception_matches(outcome.raised, expected):
        raised = type(outcome.raised).__qualname__
        got = categories_of(outcome.raised).describe() + " " if expected.category else ""
        text = (
            f"expected the adapter to raise {wanted}, but it raised {got}"
            f"{_describe_exception(outcome.raised)}"
        )
        lines += [
            Difference("result", "$", "wrong-error", text, f"{got}{raised} for {expected.label}"),
            "  traceback (adapter frames):",
            _indent(outcome.traceback()),
        ]
    yielded = to_plain(expected.yielded)
    if yielded is not None and not strict_equal(*_resolve(yielded, outcome.yielded)):
        lines.append("the items yielded before the exception differ from the expectation:")
        found = differences(yielded, outcome.yielded, subject="yielded-before-error", resolve=_resolve)
        lines += shown(found)
    return lines


def _incremental(outcome: CanonicalOutcome[Any]) -> list[Line]:
    """Text items must be yielded as their events arrive. The last one may come after the final event
    was read (Gemini streams have no closing event after their last text chunk); every earlier one
    yielded only once the whole stream had been read means the processor buffered the stream."""
    probe = outcome.probe
    if probe is None or outcome.raised is not None:
        return []
    if probe.unjudged is not None:
        raise NotJudged(probe.unjudged)
    text_reads = [
        (i, read)
        for i, (item, read) in enumerate(zip(outcome.yielded, probe.read_at_yield, strict=False))
        if isinstance(item, str)
    ]
    late = [i for i, read in text_reads[:-1] if read >= probe.total]
    if not late:
        return []
    text = (
        f"not incremental: text item(s) {late} were yielded only after all {probe.total} stream events "
        "had been read (the stream was buffered before processing)"
    )
    return [Difference("result", "$", "not-incremental", text)]


def judge(
    case: CaseBase, outcome: CanonicalOutcome[Any], noun: str, subject: Subject = "result"
) -> list[Line]:
    """Why the case fails, or ``[]`` when it passes; ``subject`` names what the expectation describes in
    each difference (a kind's ``subject``: a wire case's result is the request body)."""
    if case.expect_error is not None:
        return _expected_error(case.expect_error, outcome, noun)
    lines = _expected_value(case, outcome, noun, subject)
    if getattr(case, "incremental", False):
        lines += _incremental(outcome)
    return lines


Judge = Callable[[Any, CanonicalOutcome[Any], str], list[Line]]


def _labelled(label: str, lines: list[Line]) -> list[Line]:
    """``lines`` of one variant: the first prefixed with the method's name, every difference marked."""
    marked = [line.of_variant(label) if isinstance(line, Difference) else line for line in lines]
    first = marked[0]
    if isinstance(first, Difference):
        return [replace(first, text=f"{label}: {first.text}"), *marked[1:]]
    return [f"{label}: {first}", *marked[1:]]


def judge_variants(
    case: CaseBase, outcome: CanonicalOutcome[Any], noun: str, method: str, judge_one: Judge | None = None
) -> list[Line]:
    """``judge_one`` (a kind's own judge, else ``judge``) of the outcome and of each variant
    (``process_async`` beside ``process``): with variants, each method that deviates is named, so that
    a maintainer sees which one failed."""
    judge_one = judge_one or judge
    lines = judge_one(case, outcome, noun)
    if not outcome.variants:
        return lines
    out = _labelled(method, lines) if lines else []
    deviating = []
    for label, variant in outcome.variants:
        variant_lines = judge_one(case, variant, noun)
        if variant_lines:
            deviating.append(label)
            out += _labelled(label, variant_lines)
    if deviating and not lines:
        out.insert(0, f"{method} conforms; {', '.join(deviating)} deviates:")
    return out
