"""The plugin keeps the garbage collector off while a session collects (a corpus's cases all live on, so
the collections their allocation triggers find nothing) and freezes what a corpus collection built;
whatever the collection does, the collector ends as the session found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CASES, REPO

ONE_CASE = "wire.openai.chat.single-text-part-is-string"


class _CollectorProbe:
    """Notes whether the collector is on each time a file is offered for collection."""

    def __init__(self) -> None:
        self.enabled: list[bool] = []

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> None:
        self.enabled.append(gc.isenabled())


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def test_the_collector_is_off_while_collecting_and_on_after(pytester: pytest.Pytester) -> None:
    pytester.syspathinsert(REPO)
    probe = _CollectorProbe()
    assert gc.isenabled()
    reprec = pytester.inline_run(str(CASES), "-p", "no:cacheprovider", "-k", ONE_CASE, plugins=[probe])
    reprec.assertoutcome(passed=1)
    assert probe.enabled and not any(probe.enabled)
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0  # the corpus the collection built is out of the collector's sight


def test_a_failing_collection_turns_the_collector_back_on(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(
        "def pytest_collection_modifyitems(items):\n    raise RuntimeError('a plugin broke collection')\n"
    )
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = pytester.inline_run("-p", "no:cacheprovider")
    assert result.ret != 0
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off(pytester: pytest.Pytester, collector_off: None) -> None:
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    pytester.inline_run("-p", "no:cacheprovider").assertoutcome(passed=1)
    assert not gc.isenabled()
