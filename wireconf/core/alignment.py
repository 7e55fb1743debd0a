"""Arrays compared item with item: an inserted or dropped item is one difference, not a shift of all
that follows it.

A diff that pairs the items of two arrays by position turns one inserted message into a difference at every
later index, each charged to whatever rule governs what happens to differ there, and hides the difference the
case is about. Before the comparison (``wireconf.cassettes.compare``) every array whose items are objects or
arrays is aligned with its counterpart (deepdiff already aligns arrays of scalars with difflib; arrays of
numbers keep their positions, a vector's index is its meaning):

1. ``difflib.SequenceMatcher`` over the items' values (JSON equality: ``1 == 1.0``, ``true != 1``)
   pairs the items both sides hold unchanged, in order;
2. between two such anchors, as many items on each side are paired in order; where the counts differ,
   each runtime's item is told apart by the expected item nearest to it (deepdiff's distance, below
   ``CUTOFF``), and a second ``SequenceMatcher`` over those pairs the items that are the same item
   changed: an item like none expected is unexpected, an expected item the runtime has no counterpart
   for is missing;
3. the items left over between two such pairs are paired in order, the surplus missing or unexpected.

The aligned copies hold ``GAP`` where a side has no item, so deepdiff compares counterparts and reports
a gap as the other side's item. ``Alignment.expected_path`` gives a path in the expectation's indices
(an unexpected item has none: its last index is the runtime's) and ``actual_path`` the runtime's.
Alignment is bounded like the diff: after ``BUDGET`` values visited the rest keeps its positions.
"""

from __future__ import annotations

import difflib
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from wireconf.core.untyped import JSON

CUTOFF = 0.3
"""deepdiff's distance below which a runtime's item is the expected item changed (deepdiff's own
``cutoff_distance_for_pairs``)."""
MAX_PAIRS = 144
"""Distances computed between two anchors at most (twelve items by twelve); a larger block is
paired in order."""
BUDGET = 200_000
"""Values visited while aligning; then the arrays left keep their positions."""


class _Gap:
    """Where one side of an aligned array has no item."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<no item>"


GAP = _Gap()

Pair = tuple[int | None, int | None]
"""An expected item's index and its counterpart's in the runtime's array; ``None``: no item."""
Step = str | int


class _Spent(Exception):
    """The alignment's budget is used up."""


@dataclass
class Alignment:
    """Both sides with every aligned array padded with ``GAP``, and for each such array (by its path in
    the aligned values) the pairs of original indices its positions stand for."""

    expected: JSON
    actual: JSON
    arrays: dict[tuple[Step, ...], list[Pair]] = field(default_factory=dict)

    def _path(self, steps: tuple[Step, ...], side: int) -> tuple[Step, ...]:
        out: list[Step] = []
        for depth, step in enumerate(steps):
            pairs = self.arrays.get(steps[:depth])
            if pairs is not None and isinstance(step, int) and step < len(pairs):
                index, other = pairs[step][side], pairs[step][1 - side]
                out.append(index if index is not None else other if other is not None else step)
            else:
                out.append(step)
        return tuple(out)

    def expected_path(self, steps: tuple[Step, ...]) -> tuple[Step, ...]:
        """The path, in the aligned values, as the expectation's indices; where the expectation has no
        item (an unexpected one), the runtime's index."""
        return self._path(steps, 0)

    def actual_path(self, steps: tuple[Step, ...]) -> tuple[Step, ...]:
        """The same place in the runtime's value (its indices; the expectation's where it has none)."""
        return self._path(steps, 1)

    def arrange(self, value: JSON, side: int) -> JSON:
        """``value`` (the expectation, ``side`` 0, or the runtime's, 1, of the same shape as the values
        aligned, e.g. before its matchers were resolved) with the same arrays aligned; what holds no
        aligned array is the value itself, not a copy."""
        within = {path[:depth] for path in self.arrays for depth in range(len(path) + 1)}
        return self._arranged(value, side, (), within)

    def _arranged(self, value: JSON, side: int, at: tuple[Step, ...], within: set[tuple[Step, ...]]) -> JSON:
        if at not in within:
            return value
        if isinstance(value, dict):
            return {k: self._arranged(v, side, (*at, k), within) for k, v in value.items()}
        if isinstance(value, list):
            pairs = self.arrays.get(at)
            if pairs is None:
                return [self._arranged(v, side, (*at, i), within) for i, v in enumerate(value)]
            indices = [pair[side] for pair in pairs]
            return [
                GAP if index is None else self._arranged(value[index], side, (*at, position), within)
                for position, index in enumerate(indices)
            ]
        return value


def align(expected: JSON, actual: JSON) -> Alignment:
    """``expected`` and ``actual`` with their arrays of objects aligned (see the module docstring)."""
    alignment = Alignment(expected, actual)
    budget = [BUDGET]
    alignment.expected, alignment.actual = _aligned(expected, actual, (), alignment.arrays, budget)
    return alignment


def _aligned(
    expected: JSON,
    actual: JSON,
    at: tuple[Step, ...],
    arrays: dict[tuple[Step, ...], list[Pair]],
    budget: list[int],
) -> tuple[JSON, JSON]:
    budget[0] -= 1
    if budget[0] < 0:
        return expected, actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        common = [k for k in expected if k in actual]
        if not common:
            return expected, actual
        left, right = dict(expected), dict(actual)
        for key in common:
            left[key], right[key] = _aligned(expected[key], actual[key], (*at, key), arrays, budget)
        return left, right
    if isinstance(expected, list) and isinstance(actual, list):
        pairs = _pairs(expected, actual, budget) if _holds_containers(expected, actual) else None
        if pairs is None:
            pairs = [(i, i) for i in range(min(len(expected), len(actual)))]
            left_list, right_list = list(expected), list(actual)
        else:
            arrays[at] = pairs
            left_list = [GAP if i is None else expected[i] for i, _ in pairs]
            right_list = [GAP if j is None else actual[j] for _, j in pairs]
        for position, (i, j) in enumerate(pairs):
            if i is not None and j is not None:
                left_list[position], right_list[position] = _aligned(
                    expected[i], actual[j], (*at, position), arrays, budget
                )
        return left_list, right_list
    return expected, actual


def _holds_containers(expected: list[JSON], actual: list[JSON]) -> bool:
    return any(isinstance(v, dict | list) for v in expected) or any(
        isinstance(v, dict | list) for v in actual
    )


def _pairs(expected: list[JSON], actual: list[JSON], budget: list[int]) -> list[Pair] | None:
    """The pairs of indices of the aligned array; ``None`` when they are the positions (nothing
    inserted or dropped, or no budget left to tell)."""
    try:
        left = [_key(v, budget) for v in expected]
        right = [_key(v, budget) for v in actual]
    except _Spent:
        return None
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    pairs: list[Pair] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            pairs += zip(range(i1, i2), range(j1, j2), strict=True)
        else:
            pairs += _block(expected, actual, range(i1, i2), range(j1, j2))
    if all(i == j for i, j in pairs) and len(expected) == len(actual):
        return None
    dropped = {left[i] for i, j in pairs if i is not None and j is None}
    if any(right[j] in dropped for i, j in pairs if i is None and j is not None):
        return None  # an item moved, not inserted: the order differs at each place it changed
    return pairs


def _block(expected: list[JSON], actual: list[JSON], rows: range, columns: range) -> list[Pair]:
    """The items between two anchors, when the two sides hold different numbers of them."""
    if not rows or not columns or len(rows) * len(columns) > MAX_PAIRS:
        return _in_order(list(rows), list(columns))
    closest: list[tuple[float, int]] = []
    for j in columns:
        closest.append(min((_distance(expected[i], actual[j]), i) for i in rows))
    # each expected item stands for the one runtime's item nearest to it, if it is near enough
    chosen = {i: min(d for d, row in closest if row == i) for _, i in closest}
    nearest: list[Hashable] = [
        i if d < CUTOFF and d == chosen[i] else ("unlike", j)
        for j, (d, i) in zip(columns, closest, strict=True)
    ]
    matcher = difflib.SequenceMatcher(None, list(rows), nearest, autojunk=False)
    pairs: list[Pair] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pairs += zip(rows[i1:i2], columns[j1:j2], strict=True)
        else:
            pairs += _in_order(list(rows[i1:i2]), list(columns[j1:j2]))
    return pairs


def _distance(expected: JSON, actual: JSON) -> float:
    """deepdiff's distance between two values: 0 the same, 1 nothing alike."""
    from deepdiff import DeepDiff

    diff = DeepDiff(expected, actual, get_deep_distance=True, threshold_to_diff_deeper=0)
    return float(diff.get("deep_distance", 0.0))


def _in_order(rows: list[int], columns: list[int]) -> list[Pair]:
    """Paired by position, the surplus of either side alone."""
    common = min(len(rows), len(columns))
    pairs: list[Pair] = list(zip(rows[:common], columns[:common], strict=True))
    pairs += [(i, None) for i in rows[common:]]
    pairs += [(None, j) for j in columns[common:]]
    return pairs


def _key(value: Any, budget: list[int]) -> Hashable:
    """A hashable form of a JSON value, equal for values JSON reads alike (``1`` and ``1.0``; ``true``
    is not ``1``)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _Spent
    if isinstance(value, dict):
        return ("object", frozenset((k, _key(v, budget)) for k, v in value.items()))
    if isinstance(value, list):
        return ("array", tuple(_key(v, budget) for v in value))
    if isinstance(value, bool):
        return ("boolean", value)
    if isinstance(value, int | float):
        return ("number", value)
    return (type(value).__name__, value if isinstance(value, Hashable) else repr(value))
