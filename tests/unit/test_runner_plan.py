"""``Plan.following``: the cases the forked runner sends ahead in one batch are those ``Plan.after``
gives one ``k`` at a time (``ForkedRunner._send_ahead`` asked it for each before)."""

from __future__ import annotations

from typing import Any

from wireconf.pytest_plugin.runners import Plan


class _Case:
    def __init__(self, nodeid: str) -> None:
        self.nodeid = nodeid


def _one_at_a_time(plan: Plan, item: Any, start: int, count: int) -> list[Any]:
    found: list[Any] = []
    while len(found) < count:
        upcoming = plan.after(item, start + len(found))
        if upcoming is None:
            break
        found.append(upcoming)
    return found


def test_following_is_after_for_each_k() -> None:
    cases = [_Case(f"c{i}") for i in range(12)]
    plan = Plan()
    plan.extend([*cases[:4], None, *cases[4:9], None, None, *cases[9:]])
    stranger = _Case("c0")  # the same node id, another item: not planned
    for item in [*cases, stranger]:
        for start in range(0, 8):
            for count in range(0, 10):
                expected = _one_at_a_time(plan, item, start, count) if start >= 1 else []
                assert plan.following(item, start, count) == expected, (item.nodeid, start, count)


def test_an_item_planned_again_is_found_where_it_was_planned_last() -> None:
    a, b, c = _Case("a"), _Case("b"), _Case("c")
    plan = Plan()
    plan.extend([a, b])
    plan.extend([c, a, b])  # an xdist worker's plan, a rerun: the later place counts
    assert plan.following(a, 1, 5) == [b] == [plan.after(a, 1)]
    assert plan.following(c, 1, 5) == [a, b]
