"""The forked runner's order: the cases whose input is an SDK stream after the other cases, nothing else
moved (``items.streams_last``)."""

from __future__ import annotations

from typing import Any

import pytest

from wireconf.kinds.registry import KINDS
from wireconf.pytest_plugin.items import CaseItem, streams_last


def _case(name: str, kind: str) -> Any:
    """A case item as ``streams_last`` reads it (its kind), without a session to collect it in."""
    item = object.__new__(CaseItem)  # pytest builds nodes through ``from_parent`` only
    item.__dict__.update(label=name, case_kind=KINDS[kind])
    return item


class _Other:
    """Another plugin's test, or a project's own."""

    def __init__(self, name: str) -> None:
        self.label = name


def test_stream_inputs_go_after_the_other_cases_and_nothing_else_moves() -> None:
    assert KINDS["stream"].streams_only and KINDS["blocks"].streams_only
    assert not KINDS["wire"].streams_only and not KINDS["process"].streams_only
    items: list[Any] = [
        _Other("own-1"),
        _case("process-a", "process"),
        _case("stream-b", "stream"),
        _case("stream-c", "stream"),
        _case("wire-d", "wire"),
        _Other("own-2"),
        _case("blocks-e", "blocks"),
        _case("wire-f", "wire"),
    ]
    streams_last(items)
    # the cases fill the cases' places, the others keep theirs; each group in its own order
    assert [item.label for item in items] == [
        "own-1",
        "process-a",
        "wire-d",
        "wire-f",
        "stream-b",
        "own-2",
        "stream-c",
        "blocks-e",
    ]


@pytest.mark.parametrize("kinds", [[], ["wire", "process"], ["stream", "blocks"]])
def test_a_run_without_both_groups_keeps_its_order(kinds: list[str]) -> None:
    items: list[Any] = [_case(f"{kind}-{n}", kind) for n, kind in enumerate(kinds)]
    before = [item.label for item in items]
    streams_last(items)
    assert [item.label for item in items] == before
