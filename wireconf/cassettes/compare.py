"""Exact comparison of canonical results, and a minimal readable diff when they differ.

The verdict is ``strict_equal``: JSON semantics (key order ignored, list order kept, ``1 == 1.0``) but
``True`` is never ``1`` and a key that must be absent fails when present. A declared ``tolerance``
loosens float comparison only. The diff is rendered from deepdiff's tree view as one line per
difference with a JSONPath-like location, values shown as JSON.

A diff is bounded whatever the values: at most ``MAX_LINES`` differences, each value cut to a line,
texts of many lines shown from their first differing line, and deepdiff stopped after
``MAX_COMPARISONS`` comparisons; what was left out is said. Values are shown with every rendering of
the environment's keys replaced (``wireconf.providers.secret_values.redact``) before they are cut.
"""

from __future__ import annotations

import difflib
import json
import logging
import math
import reprlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wireconf.core.alignment import GAP, Step, align
from wireconf.core.differences import Difference, Line
from wireconf.core.untyped import JSON
from wireconf.providers.secret_values import redact

if TYPE_CHECKING:
    from deepdiff.model import DiffLevel

_MAX_VALUE = 240
MAX_LINES = 60
"""Differences listed; the others are counted."""
MAX_TEXT_LINES = 40
"""Lines of a text diff shown."""
MAX_DIFFABLE_TEXT = 2000
"""Texts with more lines than this are shown from their first difference, not diffed line by line."""
MAX_COMPARISONS = 200_000
"""deepdiff stops after this many comparisons (a huge value would take minutes)."""


class _QuietLimit(logging.Filter):
    """deepdiff logs a warning when it stops at the limit; the diff says so itself."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "max_diffs" not in record.getMessage()


logging.getLogger("deepdiff.diff").addFilter(_QuietLimit())


def _is_number(value: JSON) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_kind(value: JSON) -> str:
    """The JSON type of a canonical value: null, boolean, number, string, array or object."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if _is_number(value):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


_EQUAL_AS_PYTHON: frozenset[type] = frozenset({str, int, bool, type(None)})
"""Types whose values, the same type on both sides, are equal under JSON semantics exactly when ``==``
says so (floats too when no tolerance is declared)."""
_EQUAL_AS_PYTHON_OR_FLOAT = _EQUAL_AS_PYTHON | {float}


def strict_equal(expected: JSON, actual: JSON, tolerance: float | None = None) -> bool:
    """Equality of two canonical values under JSON semantics, with bool distinct from numbers."""
    plain = _EQUAL_AS_PYTHON if tolerance is not None else _EQUAL_AS_PYTHON_OR_FLOAT
    return _equal(expected, actual, tolerance, plain)


def _equal(expected: JSON, actual: JSON, tolerance: float | None, plain: frozenset[type]) -> bool:
    kind = type(expected)
    if kind is type(actual):  # the common case, decided without asking for JSON kinds
        if kind in plain:
            return bool(expected == actual)
        if kind is dict:
            return expected.keys() == actual.keys() and all(
                expected[k] == actual[k]  # a scalar of the same type on both sides: no call for it
                if type(expected[k]) is type(actual[k]) and type(expected[k]) in plain
                else _equal(expected[k], actual[k], tolerance, plain)
                for k in expected
            )
        if kind is list:
            return len(expected) == len(actual) and all(
                e == a if type(e) is type(a) and type(e) in plain else _equal(e, a, tolerance, plain)
                for e, a in zip(expected, actual, strict=True)
            )
    return _strict_equal_across_types(expected, actual, tolerance)


def _strict_equal_across_types(expected: JSON, actual: JSON, tolerance: float | None) -> bool:
    if json_kind(expected) != json_kind(actual):
        return False
    if _is_number(expected):
        if tolerance is not None and (isinstance(expected, float) or isinstance(actual, float)):
            return math.isclose(expected, actual, rel_tol=0.0, abs_tol=tolerance)
        return bool(expected == actual)
    if isinstance(expected, dict):
        return expected.keys() == actual.keys() and all(
            strict_equal(expected[k], actual[k], tolerance) for k in expected
        )
    if isinstance(expected, list):
        return len(expected) == len(actual) and all(
            strict_equal(e, a, tolerance) for e, a in zip(expected, actual, strict=True)
        )
    return bool(expected == actual)


_REDACT_MARGIN = 4096
"""Characters serialised past a line's limit, so that a key that straddles the cut is whole when
redacted (no rendering of a key is this long)."""

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "))


def _json_prefix(value: JSON, size: int) -> str:
    """The start of ``value`` as compact JSON, serialised only until it is longer than ``size`` (a
    value aliased many times over can stand for gigabytes of JSON; one diff line shows 240 characters)."""
    try:
        parts: list[str] = []
        total = 0
        for chunk in _ENCODER.iterencode(value):
            parts.append(chunk)
            total += len(chunk)
            if total > size:
                break
        return "".join(parts)
    except (TypeError, ValueError, RecursionError):
        shorter = reprlib.Repr()  # repr, with every part bounded
        shorter.maxlevel, shorter.maxstring, shorter.maxother = 8, size, size
        shorter.maxdict = shorter.maxlist = shorter.maxtuple = shorter.maxset = 64
        return shorter.repr(value)


def show(value: JSON, limit: int = _MAX_VALUE) -> str:
    """A value as compact JSON, shortened for one diff line."""
    text = redact(_json_prefix(value, limit + _REDACT_MARGIN))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cut(line: str) -> str:
    line = redact(line)
    return line if len(line) <= _MAX_VALUE else line[: _MAX_VALUE - 1] + "…"


def _path(level: DiffLevel) -> tuple[Step, ...]:
    """A deepdiff level's place in the aligned values: keys and indices."""
    return tuple(p if isinstance(p, int) else str(p) for p in level.path(output_format="list"))


def _parts(steps: tuple[Step, ...]) -> tuple[tuple[int, Any], ...]:
    """Steps as ``format_path`` reads them (and as they sort: indices before keys)."""
    return tuple((0, p) if isinstance(p, int) else (1, p) for p in steps)


def format_path(parts: tuple[tuple[int, Any], ...]) -> str:
    """``$.messages[0].content`` from a deepdiff path."""
    out = "$"
    for is_key, part in parts:
        out += f".{part}" if is_key and part.isidentifier() else (f"[{part!r}]" if is_key else f"[{part}]")
    return out


def _typed(value: JSON) -> str:
    """A value with its JSON type, for type changes: ``string "1"``, ``number 1``, ``null``."""
    return "null" if value is None else f"{json_kind(value)} {show(value)}"


def _string_change(old: str, new: str) -> str:
    if "\n" not in old and "\n" not in new:
        return f"expected {show(old)}, got {show(new)}"
    old_lines, new_lines = old.splitlines(), new.splitlines()
    if max(len(old_lines), len(new_lines)) > MAX_DIFFABLE_TEXT:
        first = next(
            (i for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=False)) if a != b),
            min(len(old_lines), len(new_lines)),
        )
        shown = [f"-{_cut(line)}" for line in old_lines[first : first + 3]]
        shown += [f"+{_cut(line)}" for line in new_lines[first : first + 3]]
        return (
            f"text differs from line {first + 1} on (expected {len(old_lines)} lines, got {len(new_lines)}; "
            "first lines that differ, and no more):\n      " + "\n      ".join(shown)
        )
    lines = list(difflib.unified_diff(old_lines, new_lines, "expected", "got", lineterm="", n=1))
    more = len(lines) - MAX_TEXT_LINES
    shown = [_cut(line) for line in lines[:MAX_TEXT_LINES]]
    if more > 0:
        shown.append(f"… {more} more lines of this text diff")
    return "text differs:\n      " + "\n      ".join(shown)


def _shape(expected: JSON, actual: JSON) -> str:
    """``array → string``: the JSON types of both sides, when they differ."""
    return f"{json_kind(expected)} → {json_kind(actual)}"


Resolve = Callable[[JSON, JSON], tuple[JSON, JSON]]
"""What makes an expectation comparable with a result: its matchers resolved against the values that
stand where they stand (``wireconf.judging.matchers``)."""


def differences(
    expected: JSON,
    actual: JSON,
    tolerance: float | None = None,
    subject: str = "result",
    resolve: Resolve | None = None,
) -> Differences:
    """Every difference between two canonical values, in path order, each with its one-line text
    (``$.max_tokens: unexpected key (got 100)``), at the finest path where the two sides differ: arrays
    of objects are aligned first (``wireconf.core.alignment``: an inserted item is one difference), and an
    object is compared key by key however few keys the two sides share.

    With ``resolve``, the values are resolved once to be aligned, and again once aligned, so that a
    matcher is resolved against the item it is compared with, not the one at its index."""
    from deepdiff import DeepDiff  # imported by the first failure: a run that passes never needs it

    aligned = align(*resolve(expected, actual)) if resolve is not None else align(expected, actual)
    left, right = aligned.expected, aligned.actual
    if resolve is not None:
        left, right = resolve(aligned.arrange(expected, 0), aligned.arrange(actual, 1))
    diff = DeepDiff(
        left,
        right,
        view="tree",
        math_epsilon=tolerance,
        verbose_level=2,
        max_diffs=MAX_COMPARISONS,
        threshold_to_diff_deeper=0,
    )
    found: list[tuple[Any, str, str, str, Any]] = []
    for level in diff.get("dictionary_item_removed", []):
        found.append((_path(level), "missing-key", f"missing key (expected {show(level.t1)})", "", level))
    for level in diff.get("dictionary_item_added", []):
        found.append((_path(level), "unexpected-key", f"unexpected key (got {show(level.t2)})", "", level))
    for level in diff.get("values_changed", []):
        if isinstance(level.t1, str) and isinstance(level.t2, str):
            found.append((_path(level), "value", _string_change(level.t1, level.t2), "", level))
        else:
            text = f"expected {show(level.t1)}, got {show(level.t2)}"
            found.append((_path(level), "value", text, "", level))
    for level in diff.get("type_changes", []):
        if level.t1 is GAP:  # an aligned array's item the expectation has no counterpart for
            found.append(
                (_path(level), "unexpected-item", f"unexpected item (got {show(level.t2)})", "", level)
            )
            continue
        if level.t2 is GAP:
            found.append(
                (_path(level), "missing-item", f"missing item (expected {show(level.t1)})", "", level)
            )
            continue
        if _is_number(level.t1) and _is_number(level.t2) and strict_equal(level.t1, level.t2, tolerance):
            continue  # 1 and 1.0 are the same JSON number
        text = f"expected {_typed(level.t1)}, got {_typed(level.t2)}"
        if json_kind(level.t1) == json_kind(level.t2):  # the same JSON type: say which Python types
            text += f" ({type(level.t1).__name__} ≠ {type(level.t2).__name__})"
            change = "type" if strict_equal(level.t1, level.t2) else "value"
            found.append((_path(level), change, text, "", level))
            continue
        found.append((_path(level), "type", text, _shape(level.t1, level.t2), level))
    for level in diff.get("iterable_item_removed", []):
        found.append((_path(level), "missing-item", f"missing item (expected {show(level.t1)})", "", level))
    for level in diff.get("iterable_item_added", []):
        found.append((_path(level), "unexpected-item", f"unexpected item (got {show(level.t2)})", "", level))
    if not found and not strict_equal(left, right, tolerance):
        change = "value" if json_kind(left) == json_kind(right) else "type"
        shape = _shape(left, right) if change == "type" else ""
        found.append(((), change, f"expected {show(left)}, got {show(right)}", shape, None))
    out: list[Difference] = []
    placed = [(_parts(aligned.expected_path(steps)), *rest, steps) for steps, *rest in found]
    for parts, change, text, shape, level, steps in sorted(placed, key=lambda item: item[0]):
        path = format_path(parts)
        there = format_path(_parts(aligned.actual_path(steps)))
        if there != path or (change == "unexpected-item" and steps[:-1] in aligned.arrays):
            text = _noted(text, f" (the runtime's {there})")  # the index a path names is the runtime's
        sides = (left, right) if level is None else _sides(level)
        out.append(
            Difference(subject, path, change, f"{path}: {text}", shape, expected=sides[0], actual=sides[1])
        )
    stats = diff.get_stats()  # type: ignore[no-untyped-call]  # deepdiff leaves it unannotated
    return Differences(out, stopped=bool(stats.get("MAX DIFF LIMIT REACHED")))


def _noted(text: str, note: str) -> str:
    """``text`` with ``note`` at the end of its first line."""
    first, newline, rest = text.partition("\n")
    head, colon = (first[:-1], ":") if first.endswith(":") and newline else (first, "")
    return f"{head}{note}{colon}{newline}{rest}"


def _sides(level: DiffLevel) -> tuple[JSON, JSON]:
    """The expectation's and the runtime's values at a deepdiff level (``None`` for the absent side)."""
    from deepdiff.helper import notpresent

    expected, actual = (None if v is notpresent or v is GAP else v for v in (level.t1, level.t2))
    return expected, actual


class Differences(list[Difference]):
    """Every difference found (all of them are data for attribution and causes); ``stopped`` when
    deepdiff gave up at ``MAX_COMPARISONS`` and the list is incomplete."""

    def __init__(self, found: list[Difference], stopped: bool = False) -> None:
        super().__init__(found)
        self.stopped = stopped


def shown(found: list[Difference], prefix: str = "  ") -> list[Line]:
    """The lines a person reads: at most ``MAX_LINES`` differences, indented, then what was left out."""
    lines: list[Line] = [d.indented(prefix) for d in found[:MAX_LINES]]
    if len(found) > MAX_LINES:
        lines.append(f"{prefix}… and {len(found) - MAX_LINES} more differences")
    if getattr(found, "stopped", False):
        lines.append(
            f"{prefix}(the comparison stopped after {MAX_COMPARISONS:,} steps: the values are too large to "
            "list every difference)"
        )
    return lines


def render_diff(expected: JSON, actual: JSON, tolerance: float | None = None) -> list[str]:
    """One line per difference, e.g. ``$.max_tokens: unexpected key (got 100)``."""
    return [str(line) for line in shown(differences(expected, actual, tolerance), prefix="")]
