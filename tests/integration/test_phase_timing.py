"""The runtime's time is charged to a case's call phase (``--durations``, the reports' phase timings),
although the case runs during its setup, so that what keeps it from a verdict is an error."""

from __future__ import annotations

import pytest

from tests.conftest import CASES, REPO
from tests.integration.test_hostile_adapters import WIRE, only

SLEEP = 0.5

SLOW_ADAPTER = f"""
import time

from tests.fakes.base import FakeAdapter


class Adapter(FakeAdapter):
    name = "sleeps"

    def build_request(self, api, agent, messages):
        time.sleep({SLEEP})
        return super().build_request(api, agent, messages)


adapter = Adapter()
"""


@pytest.mark.parametrize("runner", ["process", "thread"])
def test_the_adapter_calls_time_is_the_call_phases_not_the_setups(pytester: pytest.Pytester, runner):
    pytester.makepyfile(sleeps=SLOW_ADAPTER)
    pytester.syspathinsert()
    pytester.syspathinsert(REPO)
    reprec = pytester.inline_run(
        str(CASES), "-p", "no:cacheprovider", "--impl=sleeps:adapter", f"--case-runner={runner}", *only(WIRE)
    )
    reports = {r.when: r for r in reprec.getreports("pytest_runtest_logreport") if r.nodeid.endswith(WIRE)}
    assert reports["call"].passed, reports["call"].longrepr
    assert reports["call"].duration >= SLEEP  # the runtime slept in its call
    assert reports["setup"].duration < SLEEP  # the setup keeps only the harness's preparation


def test_durations_lists_the_case_under_call(pytester: pytest.Pytester):
    pytester.makepyfile(sleeps=SLOW_ADAPTER)
    pytester.syspathinsert()
    pytester.syspathinsert(REPO)
    result = pytester.runpytest_inprocess(
        str(CASES),
        "-p",
        "no:cacheprovider",
        "--impl=sleeps:adapter",
        "--durations=1",
        "--durations-min=0",
        *only(WIRE),
    )
    result.assert_outcomes(passed=1)
    result.stdout.re_match_lines([rf"\d+\.\d+s call .*{WIRE}"])
