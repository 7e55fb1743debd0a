"""The comparer's verdict is exact JSON equality; its diff is one readable line per difference."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from wireconf.cassettes.compare import render_diff, strict_equal
from wireconf.judging.canonical import NotData, canonical, tool_calls_as_expected


@pytest.mark.parametrize(
    ("expected", "actual", "equal"),
    [
        ({"a": 1, "b": [1, 2]}, {"b": [1, 2], "a": 1}, True),
        (1, 1.0, True),
        (True, 1, False),
        ([True], [1], False),
        (0, False, False),
        (None, "", False),
        ([1, 2], [2, 1], False),
        ({"a": None}, {}, False),
        ("x", "x ", False),
        # the same rules inside containers, where scalars of one type on both sides are compared inline
        ({"n": [1.0, 2, "x", None]}, {"n": [1, 2.0, "x", None]}, True),
        ({"n": True}, {"n": 1}, False),
        ({"n": 1}, {"n": True}, False),
        ([[0]], [[False]], False),
        ([float("nan")], [float("nan")], False),
        ({"a": [{"b": "x"}]}, {"a": [{"b": "y"}]}, False),
        ([1, 2], [1, 2, 3], False),
    ],
)
def test_strict_equal(expected, actual, equal):
    assert strict_equal(expected, actual) is equal


def test_tolerance_only_loosens_floats():
    assert strict_equal([0.1234567], [0.1234568], tolerance=1e-6)
    assert not strict_equal([0.1234567], [0.1234568])
    assert not strict_equal([1], [2], tolerance=1e-6)
    assert strict_equal({"v": [[0.5, 1.0000001]]}, {"v": [[0.5000001, 1]]}, tolerance=1e-6)
    assert not strict_equal({"v": [True]}, {"v": [1.0]}, tolerance=1e-6)


def test_diff_lines_name_paths_and_json_values():
    expected = {"messages": [{"role": "user", "content": "Hi"}], "max_completion_tokens": 5, "n": True}
    actual = {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
        "max_tokens": 5,
        "n": 1,
    }
    assert render_diff(expected, actual) == [
        "$.max_completion_tokens: missing key (expected 5)",
        "$.max_tokens: unexpected key (got 5)",
        '$.messages[0].content: expected string "Hi", got array [{"type": "text", "text": "Hi"}]',
        "$.n: expected boolean true, got number 1",
    ]


def test_diff_of_lists_and_numbers():
    assert render_diff(["a", "b"], ["a", "", "b"]) == ['$[1]: unexpected item (got "")']
    assert render_diff({"t": 1}, {"t": 1.0}) == []
    assert render_diff(list(range(12)), [*range(10), 99]) == [
        "$[10]: expected 10, got 99",
        "$[11]: missing item (expected 11)",
    ]


def test_multiline_strings_get_a_unified_diff():
    (line,) = render_diff({"s": "a\nb\nc"}, {"s": "a\nB\nc"})
    assert line.startswith("$.s: text differs:") and "-b" in line and "+B" in line


@dataclass
class ToolCallLike:
    id: str
    name: str
    arguments: str
    type: str = "function"


class ToolCallWithoutId:
    name = "f"
    arguments = "{}"


def test_canonical_reads_tool_call_fields_only():
    assert canonical([ToolCallLike("c1", "f", "{}")]) == [{"id": "c1", "name": "f", "arguments": "{}"}]
    assert canonical(ToolCallWithoutId()) == {"id": None, "name": "f", "arguments": "{}"}


def test_canonical_keeps_mappings_as_they_are():
    assert canonical({"id": "c1", "name": "f", "arguments": "{}", "type": "function"})["type"] == "function"
    assert canonical((1, (2, 3))) == [1, [2, 3]]


@pytest.mark.parametrize(
    ("value", "where"),
    [
        (object(), "the top"),
        ({"a": [1, {2, 3}]}, "a[1]"),
        ({1: "x"}, "[1] (a non-string key)"),
        (iter([1]), "the top"),
    ],
)
def test_canonical_rejects_what_is_not_data(value, where):
    with pytest.raises(NotData, match="not data") as info:
        canonical(value)
    assert f"at {where}" in str(info.value)


def test_tool_call_mappings_are_read_from_their_keys_where_a_tool_call_is_expected():
    expected = ["Hello", {"id": "c1", "name": "f", "arguments": "{}"}]
    actual = ["Hello", {"id": "c1", "name": "f", "arguments": "{}", "type": "function", "index": 0}]
    assert tool_calls_as_expected(expected, actual) == expected
    # a missing id stays visible as null; a dict where no tool call is expected is left alone
    assert tool_calls_as_expected(expected, ["Hello", {"name": "f", "arguments": "{}"}])[1]["id"] is None
    assert tool_calls_as_expected({"a": 1}, {"name": "f", "arguments": "{}", "x": 1}) == {
        "name": "f",
        "arguments": "{}",
        "x": 1,
    }
    # surplus items are kept so the diff shows them
    assert tool_calls_as_expected([], [{"name": "f", "arguments": "{}"}]) == [
        {"name": "f", "arguments": "{}"}
    ]


def test_json_matcher_accepts_any_spelling_of_the_same_json():
    from wireconf.judging.matchers import apply_matchers

    expected = [{"id": "t1", "name": "f", "arguments": {"$json": {"city": "Paris", "n": 1}}}]
    for spelling in ('{"city": "Paris", "n": 1}', '{"n":1,"city":"Paris"}'):
        resolved, actual = apply_matchers(expected, [{"id": "t1", "name": "f", "arguments": spelling}])
        assert strict_equal(resolved, actual)
    resolved, actual = apply_matchers(
        expected, [{"id": "t1", "name": "f", "arguments": '{"city": "Rome", "n": 1}'}]
    )
    assert render_diff(resolved, actual) == ['$[0].arguments[\'$json\'].city: expected "Paris", got "Rome"']
    resolved, actual = apply_matchers({"$json": {"a": 1}}, {"a": 1})
    assert not strict_equal(resolved, actual)  # a parsed dict is not a JSON string


def test_pattern_matcher():
    from wireconf.judging.matchers import apply_matchers

    assert strict_equal(*apply_matchers({"id": {"$pattern": "call_[0-9]+"}}, {"id": "call_12"}))
    resolved, actual = apply_matchers({"id": {"$pattern": "call_[0-9]+"}}, {"id": "call_x"})
    assert render_diff(resolved, actual) == ['$.id: expected "a string matching /call_[0-9]+/", got "call_x"']


def test_id_matcher_stands_for_one_id_per_name_and_a_different_one_per_name():
    from wireconf.judging.matchers import apply_matchers

    expected = [{"blocks": [{"id": {"$id": "a"}}, {"id": {"$id": "b"}}], "current": {"$id": "b"}}]
    assert strict_equal(*apply_matchers(expected, [{"blocks": [{"id": "x"}, {"id": "y"}], "current": "y"}]))
    # the current block is not the block the name stands for
    resolved, actual = apply_matchers(expected, [{"blocks": [{"id": "x"}, {"id": "y"}], "current": "x"}])
    assert render_diff(resolved, actual) == ['$[0].current: expected "y (the id $id b stands for)", got "x"']
    # two blocks share one id: the name that came second stands for nothing
    resolved, actual = apply_matchers(expected, [{"blocks": [{"id": "x"}, {"id": "x"}], "current": "x"}])
    assert render_diff(resolved, actual) == [
        '$[0].blocks[1].id: expected "an id of its own ($id b), not $id a\'s", got "x"',
        '$[0].current: expected "an id of its own ($id b), not $id a\'s", got "x"',
    ]
    # an id must be there
    resolved, actual = apply_matchers(expected, [{"blocks": [{"id": ""}, {"id": None}], "current": "y"}])
    assert render_diff(resolved, actual) == [
        '$[0].blocks[0].id: expected "a non-empty id ($id a)", got ""',
        '$[0].blocks[1].id: expected string "a non-empty id ($id b)", got null',
    ]
