"""How benchmarks/speed.py turns its probe's rounds into figures (issue 33): a round whose empty session
ran unusually fast, or one round disturbed by the machine's load, must not move a side's floor, and a
floor one side measured high must not make its share look small (stop 39 printed 0.013 ms so)."""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

import pytest

from tests.conftest import REPO

CASES, ITEMS = 500, 2000


@pytest.fixture
def speed(monkeypatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    sys.modules.pop("speed", None)
    return importlib.import_module("speed")


def round_of(run: float, empty: float, floor: float, floor_empty: float, bare: float = 0.05) -> dict:
    """A probe's round: each session's (wall, CPU) seconds, the bare reference calls over the cases."""
    return {
        "pytest": "9.2.0",
        "cases": CASES,
        "items": ITEMS,
        "run": [run, run],
        "empty": [empty, empty],
        "floor": [floor, floor],
        "floor_empty": [floor_empty, floor_empty],
        "bare": [bare, CASES],
        "bare_cpu": [bare, CASES],
        "runner_cpu": 0.1,
    }


def test_a_lucky_empty_session_in_another_round_does_not_raise_the_floor(speed):
    """Every round's floor costs 0.8 s over its empty session (0.4 ms per item), but one round's empty
    session ran 0.3 s faster than the others' (a quiet moment). Each session's best over the rounds,
    differenced, pairs that lucky session with every round's floor: 0.55 ms per item, on one side."""
    rounds = [
        round_of(run=2.0, empty=1.6, floor=1.6, floor_empty=0.8),
        round_of(run=2.0, empty=1.3, floor=1.6, floor_empty=0.5),  # both empty sessions lucky
        round_of(run=2.0, empty=1.6, floor=1.6, floor_empty=0.8),
    ]
    figures = speed.per_case(rounds)
    assert figures["floor_wall"] == pytest.approx(0.8 / ITEMS)
    assert figures["case_wall"] == pytest.approx(0.4 / CASES)


def test_the_share_is_also_given_against_the_floor_the_sides_share(speed):
    """Two sides of the same pytest: one measured its floor high. Against its own floor its share looks
    small; against the common floor (the sides' median) both shares are their case cost less that
    floor and the reference's calls."""
    this = speed.per_case([round_of(run=2.0, empty=1.6, floor=2.0, floor_empty=0.8)] * 3)
    other = speed.per_case([round_of(run=2.0, empty=1.6, floor=1.6, floor_empty=0.8)] * 3)
    figures = {"this": this, "other": other}
    speed._common_floor(figures, {"this": {"9.2.0"}, "other": {"9.2.0"}})
    common = (1.2 / ITEMS + 0.8 / ITEMS) / 2
    assert this["common_floor_wall"] == other["common_floor_wall"] == pytest.approx(common)
    assert this["own_common"] == pytest.approx(0.4 / CASES - common - 0.05 / CASES)
    assert this["own"] < this["own_common"] < other["own"]


def test_no_common_floor_across_pytest_versions(speed):
    """A floor is the same work only under the same pytest: across versions each side keeps its own."""
    figures = {
        "a": speed.per_case([round_of(2.0, 1.6, 1.6, 0.8)]),
        "b": speed.per_case([round_of(2.0, 1.6, 1.6, 0.8)]),
    }
    speed._common_floor(figures, {"a": {"9.2.0"}, "b": {"8.4.2"}})
    assert "common_floor_wall" not in figures["a"] and "own_common" not in figures["b"]
