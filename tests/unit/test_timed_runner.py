"""The thread runner's timer leaves no thread behind: a worker abandoned by a case that overran ends
once its call returns, and the idle worker ends when the runner closes (a thread that kept running,
importing, while pytester restored ``sys.modules`` made nested runs fail at random)."""

from __future__ import annotations

import threading

import pytest

from wireconf.core.case_abort import CaseTimeout
from wireconf.pytest_plugin.timeout import TimedRunner


def test_an_abandoned_worker_ends_once_its_call_returns():
    timer = TimedRunner()
    release = threading.Event()
    with pytest.raises(CaseTimeout):
        timer.run(lambda: release.wait(60), 0.05)
    stuck = timer.worker
    assert stuck is not None and stuck.is_alive()
    assert timer.run(lambda: "next", 30) == "next"  # the next call runs on a fresh worker
    assert timer.worker is not stuck
    release.set()
    stuck.join(30)
    assert not stuck.is_alive()


def test_closing_ends_the_idle_worker():
    timer = TimedRunner()
    assert timer.run(lambda: 7, 30) == 7
    idle = timer.worker
    assert idle is not None and idle.is_alive()
    timer.close()
    idle.join(30)
    assert not idle.is_alive()
