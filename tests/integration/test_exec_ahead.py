"""Protocol 3's ``ahead``: the harness writes the next cases' calls while the runtime works on one.

What is checked is the conversation (the transcript, ``WIRECONF_EXEC_TRANSCRIPT``) and the verdicts,
never how long anything took: calls are written before the one before them is answered, the answers
still come one call at a time in the order written, a case that times out or is skipped after its
call was written costs only itself, and a runtime that does not say ``ahead`` gets one call at a time.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from wireconf.exec_protocol.client import ExecAdapter, ExecError

PY_SERVE = f"{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve"
PROCESS = "process.openai.chat and (null-content or empty-tool-call-list or first-of-two)"
"""A few process cases of openai.chat (each makes two calls: process and process_async)."""


def _transcript(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _most_unanswered(entries: list[dict[str, Any]]) -> int:
    """The most calls written and not answered yet at any point of the conversation."""
    open_calls: set[int] = set()
    most = 0
    for entry in entries:
        message = entry["message"]
        if entry["from"] == "harness" and message["type"] == "call":
            open_calls.add(message["id"])
        elif entry["from"] == "runtime" and message["type"] in ("result", "error"):
            open_calls.discard(message["id"])
        elif message["type"] == "hello":
            open_calls.clear()  # a new process: what the last one had is gone
        most = max(most, len(open_calls))
    return most


def _answer_order_follows_call_order(entries: list[dict[str, Any]]) -> bool:
    """Within each process, the runtime's messages never go back to a call written before one it
    already answered, and each call is answered after every call written before it."""
    written: list[int] = []
    answered: list[int] = []
    for entry in entries:
        message = entry["message"]
        if message["type"] == "hello":
            if answered != written[: len(answered)]:
                return False
            written, answered = [], []
        elif entry["from"] == "harness" and message["type"] == "call":
            written.append(message["id"])
        elif entry["from"] == "runtime" and message["type"] in ("result", "error"):
            answered.append(message["id"])
    return answered == written[: len(answered)]


def test_calls_go_ahead_and_are_answered_in_order_with_the_in_process_verdicts(
    run_corpus, monkeypatch, tmp_path
):
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    run = run_corpus(f"--impl=exec:{PY_SERVE} reference", "-k", PROCESS)
    inproc = run_corpus("-k", PROCESS)
    assert run.with_outcome("passed") == inproc.with_outcome("passed")
    assert len(run.with_outcome("passed")) >= 4
    entries = _transcript(transcript)
    hello = next(e["message"] for e in entries if e["message"]["type"] == "hello")
    assert hello["ahead"] is True and hello["pipeline"] is True
    assert _most_unanswered(entries) > 2  # more than one case's calls were out at once
    assert _answer_order_follows_call_order(entries)
    calls = [e["message"] for e in entries if e["message"]["type"] == "call"]
    assert len(calls) == 2 * len(run.with_outcome("passed"))  # each case's two calls, written once


def test_a_runtime_of_protocol_2_gets_one_call_at_a_time(run_corpus, monkeypatch, tmp_path):
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    run = run_corpus(f"--impl=exec:{PY_SERVE} --protocol 2 reference", "-k", PROCESS)
    assert len(run.with_outcome("passed")) >= 4 and not run.with_outcome("error")
    entries = _transcript(transcript)
    hello = next(e["message"] for e in entries if e["message"]["type"] == "hello")
    assert "ahead" not in hello
    assert _most_unanswered(entries) == 1


def test_a_case_that_times_out_costs_only_itself_and_the_calls_sent_ahead_go_to_the_next_process(
    run_corpus, monkeypatch, tmp_path
):
    """The stream case hangs while the wire cases' calls are already written behind it; its process is
    stopped at the time limit, and the calls go again to the restarted one, each answered once."""
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[2]))
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    hanging = "stream.openai.chat.real-text-deltas"
    run = run_corpus(
        f"--impl=exec:{PY_SERVE} tests.fakes.hangs:adapter",
        "--case-timeout=2",
        "-k",
        f"{hanging} or (wire.openai.chat and (api-type or single-text-part or system-then-user))",
    )
    assert run.with_outcome("error") == {hanging}
    assert "did not answer within 2 s" in run.longreprs[hanging]
    passed = run.with_outcome("passed")
    assert len(passed) >= 3 and all(case.startswith("wire.") for case in passed)
    entries = _transcript(transcript)
    hellos = [i for i, e in enumerate(entries) if e["message"]["type"] == "hello"]
    assert len(hellos) == 2
    methods = [(i, e["message"]["method"]) for i, e in enumerate(entries) if e["message"]["type"] == "call"]
    assert any(m == "build_request" for i, m in methods if i < hellos[1])  # written behind the hang
    requests = [i for i, m in methods if m == "build_request" and i > hellos[1]]
    answers = [e for e in entries[hellos[1] :] if e["message"]["type"] in ("result", "error")]
    assert len(requests) >= len(passed) and len(answers) == len([i for i, _ in methods if i > hellos[1]])


SKIPPER = """
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if item.nodeid.endswith("SKIPPED"):
        pytest.skip("skipped by another plugin in its setup")
"""


def test_a_case_skipped_after_its_calls_were_sent_ahead_keeps_the_conversation_in_step(
    run_corpus, pytester, monkeypatch, tmp_path
):
    """Another plugin skips a case in its setup, after the case's calls went ahead: the runtime still
    answers them, the harness drops those answers, and the cases after it pass in the same process."""
    skipped = "process.openai.chat.null-content-with-outputs-is-empty-string"  # third of the five
    pytester.makepyfile(skipper=SKIPPER.replace("SKIPPED", skipped))
    pytester.syspathinsert()
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    run = run_corpus(f"--impl=exec:{PY_SERVE} reference", "-p", "skipper", "-k", PROCESS)
    assert run.with_outcome("skipped") == {skipped}
    passed = run.with_outcome("passed")
    assert len(passed) >= 3 and not run.with_outcome("error") and not run.with_outcome("failed")
    entries = _transcript(transcript)
    assert [e["message"]["type"] for e in entries].count("hello") == 1
    calls = [e["message"]["id"] for e in entries if e["message"]["type"] == "call"]
    answered = [
        e["message"]["id"]
        for e in entries
        if e["from"] == "runtime" and e["message"]["type"] in ("result", "error")
    ]
    assert len(calls) == 2 * (len(passed) + 1)  # the skipped case's two calls were written too
    assert answered == calls  # and answered, in order


def test_ahead_needs_the_pipeline(tmp_path):
    hello = {"type": "hello", "protocol": 3, "name": "x", "version": "1", "capabilities": [], "ahead": True}
    runtime = tmp_path / "runtime.py"
    runtime.write_text(f"print({json.dumps(json.dumps(hello))})\n")
    with pytest.raises(ExecError, match="`ahead` is true or false, true only with `pipeline`"):
        ExecAdapter(f"{shlex.quote(sys.executable)} {runtime}")
