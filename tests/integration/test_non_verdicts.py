"""What is not a verdict on the runtime is an error of its case (or unsupported), never a failure charged
to a rule: one test per kind of non-verdict (a protocol fault inside an exec call, stray output after an
answer, a network attempt, a refused recording, an input the harness cannot hand to a runtime, a
harness bug)."""

from __future__ import annotations

import textwrap

import pytest

from tests.integration.test_hostile_adapters import PY_SERVE, WIRE, WIRE_2, WIRE_3, WIRE_4, only
from tests.integration.test_hostile_adapters import (
    markers as markers,  # the fixture: where the fakes note what they did
)


def test_protocol_faults_are_errors_of_their_own_case_and_never_of_the_next(run_corpus, markers):
    """Call 1 gets a reply for another call id, call 2 is answered and then followed by a stray line,
    call 4 gets a line that is not JSON: 1 and 4 are errors; 2 and 3 (the innocent case after the stray
    line, run on a restarted process) pass; none is a failure. One call at a time (protocol 2): with calls
    sent ahead (protocol 3's ``ahead``) the faults fall in calls the harness re-sends to the restarted
    runtime, which tests/integration/test_exec_ahead.py holds."""
    run = run_corpus(
        f"--impl=exec:{PY_SERVE} --protocol 2 tests.fakes.exec_protocol_faults:adapter",
        "--case-timeout=30",
        "-p",
        "no:randomly",
        *only(WIRE, WIRE_2, WIRE_3, WIRE_4),
    )
    order = list(run.outcomes)  # the order pytest ran them in, as it reported them
    assert sorted(order) == sorted([WIRE, WIRE_2, WIRE_3, WIRE_4])
    first, second, third, fourth = order
    assert "failed" not in run.outcomes.values(), run.longreprs
    assert (run.outcomes[first], run.outcomes[second], run.outcomes[third], run.outcomes[fourth]) == (
        "error",
        "passed",
        "passed",
        "error",
    ), run.longreprs
    assert "which was never sent to it" in run.longreprs[first]  # a reply for another call id
    assert "not a verdict on the runtime" in run.longreprs[first]
    assert "building the request now" in run.longreprs[fourth]


def test_a_network_attempt_is_an_error_not_a_failure(run_corpus):
    case = "e2e.openai.chat.text-reply"
    run = run_corpus("--impl=tests.fakes.e2e_misbehaving:own_client", "-k", case)
    assert run.outcomes == {case: "error"}
    text = run.longreprs[case]
    assert "the network is blocked while a runtime runs, and it tried to reach:" in text
    assert "7.8/through-the-sdk" not in text.split("error:")[-1]  # no rule is charged


def test_an_input_the_harness_cannot_hand_to_a_runtime_is_an_error_that_says_so():
    """An SDK client the exec bridge cannot reach into (no HTTP client to send a runtime's requests
    through) is the harness's limit, not the runtime's deviation: ``NotJudged``, which ``finish_case``
    makes an error of the case (every official SDK's client is bridged, Gemini's included:
    tests/integration/test_exec_client.py)."""
    from wireconf.core.errors import NotJudged
    from wireconf.exec_protocol.http_bridge import HttpBridge

    with pytest.raises(NotJudged, match="cannot be handed to a runtime in another process") as raised:
        HttpBridge(object())
    assert "not a verdict on the runtime" in str(raised.value)


def test_a_harness_bug_is_an_error_naming_it(run_corpus, monkeypatch):
    from wireconf.pytest_plugin.runners import child

    def broken(*args, **kwargs):
        raise RuntimeError("a bug of the harness, planted")

    monkeypatch.setattr(child, "finish_case", broken)
    run = run_corpus("--case-runner=process", "-k", WIRE)
    assert run.outcomes == {WIRE: "error"}
    assert "the harness failed on this case (a wireconf bug)" in run.longreprs[WIRE]


# --- capabilities that cannot exist ---------------------------------------------------------------------


def test_a_stream_capability_of_an_api_without_streams_is_refused_where_it_is_declared():
    from wireconf.adapter_contract import parse_capability
    from wireconf.core.errors import WireconfError
    from wireconf.runtimes.python_impl import check_adapter

    assert parse_capability("stream:openai.chat") == ("stream", "openai.chat")
    with pytest.raises(ValueError, match=r"openai\.embeddings has no streaming call") as raised:
        parse_capability("stream:openai.embeddings")
    assert "remove it from the capabilities" in str(raised.value)

    class Declares:
        name, version = "declares-embedding-streams", "0.0.1"

        def capabilities(self):
            return {"stream:openai.embeddings"}

        def process_stream(self, api, agent, events):
            yield from ()

    with pytest.raises(WireconfError, match=r"stream:openai\.embeddings"):
        check_adapter(Declares(), "tests:Declares", "test")


def test_lint_refuses_a_stream_case_on_an_api_without_streams(tmp_path, capsys):
    from wireconf.cli import main

    (tmp_path / "rules.yaml").write_text(
        "rules:\n  - {id: '8/x', level: MUST, basis: text, source: {seed: s, section: '8'}, statement: s}\n"
    )
    (tmp_path / "c.yaml").write_text(
        textwrap.dedent(
            """\
            cases:
              - id: stream.openai.embeddings.no-such-thing
                kind: stream
                api: openai.embeddings
                rules: ['8/x']
                agent: {model: {id: text-embedding-3-small}}
                response: {events: [{data: [{embedding: [0.1]}]}]}
                expect: []
            """
        )
    )
    assert main(["lint", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "c.yaml:2: stream.openai.embeddings.no-such-thing: invalid case: " in out
    assert "kind stream on openai.embeddings: openai.embeddings has no streaming call" in out
    assert "a stream case names an api that streams" in out  # what to do
