"""The runners' warm-up (``runners/warm.py``): each response parsed ahead once per process, again only
when its case or its cassette was parsed again (it changed)."""

from __future__ import annotations

import shutil
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

    def count(ctx, case):
        calls[-1].append(case.id)

    monkeypatch.setattr(base, "warm_sdk_input", count)
    monkeypatch.setattr(warm, "_WARMED", {})
    return calls


def _items(root: Path) -> list[_Item]:
    cases = [c for c in open_corpus(root).cases() if c.kind in ("process", "stream", "wire")]
    return [_Item(case, root, case.id) for case in cases]


def test_a_later_session_does_not_warm_the_same_responses_again(warmed):
    items = _items(CASES)
    host = _Host(REPO / "cassettes")
    for _ in range(2):
        warmed.append([])
        warm._warm(host, items, shared=False)
    with_response = [i.nodeid for i in items if i.loaded.kind != "wire"]
    assert with_response and warmed[0] == with_response  # a wire case has no response to parse
    assert warmed[1] == []


def test_a_cassette_parsed_again_is_warmed_again(warmed, tmp_path):
    """A cassette whose file changed is read again by the store: its cases' responses are warmed again,
    the others not."""
    cassettes = tmp_path / "cassettes"
    shutil.copytree(REPO / "cassettes", cassettes)
    items = _items(CASES)
    named = [
        i for i in items if i.loaded.kind != "wire" and getattr(i.loaded.model.response, "cassette", None)
    ]
    assert named
    cassette = named[0].loaded.model.response.cassette
    host = _Host(cassettes)
    warmed.append([])
    warm._warm(host, items, shared=False)
    path = cassettes / f"{cassette}.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    warmed.append([])
    warm._warm(host, items, shared=False)
    again = {i.nodeid for i in named if i.loaded.model.response.cassette == cassette}
    assert set(warmed[1]) == again


def test_recording_warms_no_cassette(warmed):
    warmed.append([])
    warm._warm(_Host(REPO / "cassettes", records=True), _items(CASES), shared=False)
    assert warmed == [[]]
