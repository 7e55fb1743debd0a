"""A fault costs the case whose call it names (``ahead``): a message naming an answered call is that
call's case's error while the harness waits for the runtime's next message, never the next case's;
later (its case reported), a late fault the run fails on, naming that case."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FAULTS = f"{shlex.quote(sys.executable)} -m tests.fakes.exec_ahead_faults"
CASES = "wire.openai.chat and messages"
"""Wire cases, one call each, all passing over the reference."""
GUILTY = 2  # tests/fakes/exec_ahead_faults.py


def _calls(path: Path) -> list[int]:
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [e["message"]["id"] for e in entries if e["from"] == "harness" and e["message"]["type"] == "call"]


@pytest.mark.parametrize("fault", ["stray-yield", "duplicate", "other-id"])
def test_a_stray_message_costs_the_case_it_names(run_corpus, transcript, fault):
    run = run_corpus(f"--impl=exec:{FAULTS} {fault}", "-p", "no:randomly", "-k", CASES)
    cases = list(run.outcomes)
    calls = _calls(transcript)
    assert len(cases) >= 4 and calls == list(range(1, len(calls) + 1))  # written once each, in order
    per_case = len(calls) // len(cases)  # each case makes the same calls (wire: two)
    guilty = cases[(GUILTY - 1) // per_case]
    assert run.outcomes == {case: "error" if case == guilty else "passed" for case in cases}, run.longreprs
    assert f"call {GUILTY} after answering it" in run.longreprs[guilty]


def test_a_message_naming_a_reported_case_fails_the_run_naming_it(pytester, transcript):
    """Two calls after call 2 was answered (its case reported), a message names it: no case is charged
    for it, the run fails, and its summary names call 2's case."""
    pytester.syspathinsert(REPO)
    result = pytester.runpytest(
        str(REPO / "cases"),
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        f"--impl=exec:{FAULTS} late",
        "-k",
        CASES,
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 4 and not outcomes.get("error") and not outcomes.get("failed")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*the runtime's late faults*", "*wire.openai.chat.single-text-part-is-string*for call 2 after*"]
    )


def test_a_late_fault_on_an_xdist_worker_fails_the_run_naming_its_case(pytester, transcript):
    """Under xdist each worker talks to a runtime of its own, and only the controller reports and sets
    the run's status: a late fault a worker found travels to it (with the worker's output), so that
    the run fails naming the case there too. Each worker's runtime sends one (its call 2 is a case's)."""
    result = pytester.runpytest_subprocess(
        str(REPO / "cases"),
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "-n",
        "2",
        f"--impl=exec:{FAULTS} late",
        "-k",
        CASES,
    )
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) >= 4 and not outcomes.get("error") and not outcomes.get("failed")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*the runtime's late faults*", "*wire.openai.chat.*for call 2 after*"])
