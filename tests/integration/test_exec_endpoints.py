"""``exec:`` runtimes over base URLs (issue 34, item 3): a runtime whose hello says ``endpoints`` gets in
each call the case's endpoint on the harness's provider emulator, and is judged on what it sent there
(wire) and on what it made of the recorded bytes served there (process, stream: the hold-last-event gate
judges incrementality). Its namespace has only its loopback, where the launcher listens at the emulator's
port and hands the listener to the harness, so every site's URL is the same on both sides.

The runtime is ``tests/fakes/node_endpoints.mjs``: Node on ``@wireconf/exec``, plain ``fetch``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from wireconf.cassettes import netns

REPO = Path(__file__).resolve().parents[2]
CASES = REPO / "cases"
NODE = "exec:node tests/fakes/node_endpoints.mjs"
INCREMENTAL = ("stream.openai.chat.real-text-deltas", "stream.openai.chat.real-text-then-tool-call")

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="no node on PATH")


@pytest.fixture
def node(run_corpus, monkeypatch):
    monkeypatch.chdir(REPO)

    def run(*targets: Path, extra: tuple[str, ...] = ()):
        first, *rest = targets
        return run_corpus(f"--impl={NODE}", "-p", "no:randomly", *map(str, rest), *extra, target=first)

    return run


def test_a_node_runtime_over_base_urls_is_judged_on_wire_process_and_stream(node, tmp_path, monkeypatch):
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    run = node(
        CASES / "wire" / "openai.chat" / "messages.yaml",
        CASES / "process" / "openai.chat",
        CASES / "stream" / "openai.chat",
    )

    assert run.with_outcome("error") == set(), {c: run.longreprs[c][-400:] for c in run.with_outcome("error")}
    for kind in ("wire", "process", "stream"):
        assert any(case.startswith(f"{kind}.") for case in run.with_outcome("passed")), kind
    # judged on the request as sent: a verdict on its body, not an error
    assert run.outcomes["wire.openai.chat.single-text-part-is-string"] == "passed"
    assert run.outcomes["wire.openai.chat.two-text-parts-are-an-array"] == "failed"
    assert (
        "$.messages[0].content: expected array"
        in run.longreprs["wire.openai.chat.two-text-parts-are-an-array"]
    )
    # the runtime reads the stream as it arrives: the gate lets it yield before the last event
    assert {run.outcomes[case] for case in INCREMENTAL} == {"passed"}
    messages = [json.loads(line) for line in transcript.read_text().splitlines()]
    calls = [m["message"] for m in messages if m["message"]["type"] == "call"]
    assert calls and all(set(call["endpoint"]) >= {"api_base_url", "key", "download"} for call in calls)
    # nothing of the recorded bytes crosses the protocol: no SDK object, no events, no `http` (a
    # `response_as: mapping` case's decoded body is plain data, sent as it is)
    assert all(call["sdk"] == [] and call["stream"] is None for call in calls)
    processed = [call for call in calls if call["kind"] == "process"]
    assert processed and sum("response" in call["args"] for call in processed) < len(processed)
    sent = {m["message"]["type"] for m in messages}
    assert not sent & {"events", "event", "http", "response"}
    assert len({call["endpoint"]["api_base_url"] for call in calls}) == len(calls)  # one site per case


def test_a_runtime_that_buffers_the_stream_it_reads_over_http_is_not_incremental(node, monkeypatch):
    monkeypatch.setenv("WIRECONF_FAKE_BUFFER", "1")
    run = node(CASES / "stream" / "openai.chat" / "real-traffic.yaml")

    for case in INCREMENTAL:
        assert run.outcomes[case] == "failed"
        assert "not incremental" in run.longreprs[case]


def test_requests_outside_the_case_are_its_errors_and_reach_no_network(node, monkeypatch):
    """Call 1 sends its request (a verdict); call 2 posts to call 1's URL (that case's site is closed),
    call 3 to a path that is not the case's api, call 4 downloads a URL its case does not name: each an
    error naming the request. Call 5 tries a host of the internet directly, and in the runtime's
    namespace nothing answers it: its case is judged on the request it then sends."""
    monkeypatch.setenv("WIRECONF_FAKE_STRAYS", "1")
    run = node(CASES / "wire" / "openai.chat" / "messages.yaml")
    first, second, third, fourth, fifth = list(run.outcomes)[:5]

    assert run.outcomes[first] in ("passed", "failed")
    assert {run.outcomes[case] for case in (second, third, fourth)} == {"error"}
    assert "no open site has this token" in run.longreprs[second]
    assert "not the openai.chat endpoint" in run.longreprs[third]
    assert "http://example.com/secret" in run.longreprs[fourth]
    assert "not a media URL the case names" in run.longreprs[fourth]
    if netns.available()[0]:
        assert run.outcomes[fifth] in ("passed", "failed"), run.longreprs.get(fifth)


def test_an_http_message_from_a_runtime_over_endpoints_is_a_protocol_error(node, monkeypatch):
    monkeypatch.setenv("WIRECONF_FAKE_BRIDGE", "1")
    run = node(CASES / "process" / "openai.chat" / "edge-cases.yaml")

    assert run.outcomes and set(run.outcomes.values()) == {"error"}
    assert all("whose call carries `endpoint`" in text for text in run.longreprs.values())


def test_a_restarted_runtime_gets_its_namespace_listener_handed_over_again(node, tmp_path, monkeypatch):
    monkeypatch.setenv("WIRECONF_FAKE_CRASH_AT", "2")
    monkeypatch.setenv("WIRECONF_FAKE_CRASH_FILE", str(tmp_path / "crashed"))
    run = node(CASES / "process" / "openai.chat" / "edge-cases.yaml")
    cases = list(run.outcomes)

    assert (tmp_path / "crashed").exists()
    assert run.outcomes[cases[1]] == "error" and "killed by signal 9" in run.longreprs[cases[1]]
    assert all(run.outcomes[case] in ("passed", "failed") for case in cases[2:]), run.longreprs
    assert "passed" in {run.outcomes[case] for case in cases[2:]}


def test_without_a_namespace_the_runtime_reaches_the_emulator_on_the_host_loopback(node, monkeypatch):
    monkeypatch.setattr(netns, "_PROBED", (False, "namespaces disabled by the test"))
    run = node(CASES / "process" / "openai.chat" / "edge-cases.yaml", CASES / "stream" / "openai.chat")

    assert run.with_outcome("error") == set()
    assert {run.outcomes[case] for case in INCREMENTAL} == {"passed"}


def test_calls_go_ahead_over_endpoints_with_the_verdicts_of_one_at_a_time(node, tmp_path, monkeypatch):
    """A runtime over endpoints that says ``ahead`` gets the next cases' calls while one runs, each over
    its own site, open from its preparation to the end of its call (the next case's preparation closes
    it no more): the verdicts are those of the same runtime one call at a time. A stream's call is not
    sent ahead (its gate waits for the items the harness reads), and the gate still judges it."""
    targets = (CASES / "process" / "openai.chat", CASES / "stream" / "openai.chat" / "real-traffic.yaml")
    one_at_a_time = node(*targets)
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    monkeypatch.setenv("WIRECONF_FAKE_AHEAD", "1")
    ahead = node(*targets)

    assert ahead.with_outcome("error") == set(), {
        c: ahead.longreprs[c][-400:] for c in ahead.with_outcome("error")
    }
    assert ahead.outcomes == one_at_a_time.outcomes
    assert {ahead.outcomes[case] for case in INCREMENTAL} == {"passed"}
    written = [json.loads(line)["message"] for line in transcript.read_text().splitlines()]
    # a call written while the one before it is unanswered: sent ahead
    pending, overlapped = 0, 0
    for message in written:
        if message["type"] == "call":
            overlapped += pending > 0
            pending += 1
        elif message["type"] in ("result", "error"):
            pending -= 1
    assert overlapped > 0
    calls = [m for m in written if m["type"] == "call"]
    assert len({call["endpoint"]["api_base_url"] for call in calls}) == len(calls)  # one site per case
