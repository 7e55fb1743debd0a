"""``plain_expectation``: the one walk a case's preparation and judging share is the three walks it
replaces (``to_plain``, ``has_references``, ``has_matchers`` of the plain copy), on every expectation of
the corpus and on the shapes that decide them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from wireconf.core.yaml_source import LineDict, to_plain
from wireconf.judging.matchers import has_matchers
from wireconf.judging.recorded_values import has_references, plain_expectation
from wireconf.kinds.registry import open_corpus

CASES = Path(__file__).resolve().parents[2] / "cases"


def _line_dict(**items: Any) -> LineDict:
    d = LineDict(items)
    d.line = 3
    return d


def _walks(expect: Any) -> tuple[Any, bool, bool]:
    plain = to_plain(expect)
    return plain, has_references(expect), has_matchers(plain)


@pytest.mark.parametrize(
    "expect",
    [
        None,
        "text",
        [1, 2.5, True, None],
        {"a": 1},
        _line_dict(content=[_line_dict(text="x")]),
        {"$recorded": "/data/0"},
        {"data": [{"embedding": {"$recorded": "/data/0/embedding"}}]},
        {"id": {"$id": "call"}, "args": {"$json": {"x": {"$pattern": "a+"}}}},
        [{"$pattern": ".*"}],
        {"$recorded": "/a", "other": 1},  # two keys: neither a reference nor a matcher
        {"$json": 1, "$id": "x"},
        {1: {"$id": "n"}},
        _line_dict(expect=_line_dict(**{"$recorded": "/x"})),
    ],
)
def test_one_walk_is_the_three(expect: Any) -> None:
    assert plain_expectation(expect) == _walks(expect)


def test_every_expectation_of_the_corpus() -> None:
    corpus = open_corpus(CASES)
    seen = 0
    for case in corpus.cases():
        expect = getattr(case.model, "expect", None)
        plain, references, matchers = plain_expectation(expect)
        assert (plain, references, matchers) == _walks(expect), case.id
        assert type(plain) is type(to_plain(expect))
        seen += 1
    assert seen > 500


def test_kept_for_the_same_object_only() -> None:
    first, second = {"a": [1]}, {"a": [1]}
    plain, _, _ = plain_expectation(first)
    assert plain_expectation(first)[0] is plain  # the same expectation: walked once
    other, _, _ = plain_expectation(second)
    assert other == plain and other is not plain  # an equal one is another object: walked again
    assert plain_expectation(first)[0] is not plain  # only the last one is kept
