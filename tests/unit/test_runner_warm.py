"""The runners' warm-up (``runners/warm.py``): the responses of the selected cases parsed ahead, and
nothing for a case without one or a run that records."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import CASES, REPO
from wireconf.cassettes.store import CassetteStore
from wireconf.kinds import base
from wireconf.kinds.base import HarnessContext
from wireconf.kinds.registry import open_corpus
from wireconf.pytest_plugin.runners import warm
from wireconf.sdk.replay import SdkReplay


@dataclass
class _Item:
    loaded: object
    corpus_root: Path
    nodeid: str
    session: object = None


@dataclass
class _Host:
    cassettes: Path
    replay: SdkReplay = field(default_factory=SdkReplay)
    records: bool = False

    def context(self, corpus_root: Path) -> HarnessContext:
        """A new session's context: its own store, as each pytest session has."""
        return HarnessContext(CassetteStore(self.cassettes), self.replay)


@pytest.fixture
def warmed(monkeypatch):
    """The cases each warm-up had the SDK parse, by node id."""
    calls: list[list[str]] = []

    def count(ctx, case, stream_input=False):
        calls[-1].append(case.id)

    monkeypatch.setattr(base, "warm_sdk_input", count)
    return calls


def _items(root: Path) -> list[_Item]:
    cases = [c for c in open_corpus(root).cases() if c.kind in ("process", "stream", "wire")]
    return [_Item(case, root, case.id) for case in cases]


def test_only_the_cases_with_a_response_are_warmed(warmed):
    items = _items(CASES)
    warmed.append([])
    warm._warm(_Host(REPO / "cassettes"), items, shared=False)
    with_response = [i.nodeid for i in items if i.loaded.kind != "wire"]
    assert with_response and warmed[0] == with_response  # a wire case has no response to parse


def test_recording_warms_no_cassette(warmed):
    warmed.append([])
    warm._warm(_Host(REPO / "cassettes", records=True), _items(CASES), shared=False)
    assert warmed == [[]]
