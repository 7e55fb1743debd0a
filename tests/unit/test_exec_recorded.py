"""Exec protocol 2 on the harness's side, against a runtime that reports what reaches it
(tests/fakes/recorded_runtime.py): recorded inputs are the cassette's bytes, a stream is pulled through
the counting probe one event per `next`, and an e2e runtime's HTTP goes through the case's own client
(route matching, replay, the exchange's record of what was sent)."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator

import pytest
from openai.types.chat import ChatCompletion

from tests.conftest import REPO
from wireconf.cassettes.exchange import Exchange
from wireconf.cassettes.store import CassetteStore
from wireconf.core.errors import NotJudged
from wireconf.exec_protocol.client import ExecAdapter
from wireconf.kinds.base import HarnessContext, recorded_response, sdk_input
from wireconf.sdk.replay import SdkReplay, e2e_client

RUNTIME = f"{shlex.quote(sys.executable)} {REPO / 'tests' / 'fakes' / 'recorded_runtime.py'}"
CHAT = "openai/chat__01__opentelemetry-python-contrib__test_chat_completion_with_content_i0"
CHAT_STREAM = (
    "openai/chat_stream__01__opentelemetry-python-contrib__"
    "test_chat_completion_with_raw_response_streaming_i0"
)


@pytest.fixture
def remote():
    adapter = ExecAdapter(RUNTIME)
    yield adapter
    adapter.close()


@pytest.fixture
def ctx():
    return HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())


def _case(corpus, case_id):
    return next(c for c in corpus.cases() if c.id == case_id)


def test_process_gets_the_recorded_response_byte_for_byte(remote, ctx, corpus):
    case = _case(corpus, "process.openai.chat.real-plain-text")
    response, _ = sdk_input(ctx, case, case.model.response, stream=False)
    recorded = recorded_response(ctx, case, case.model.response, stream=False)
    got = remote.process("openai.chat", {}, response)
    assert got == {"status": recorded.status, "headers": recorded.headers, "body": recorded.body.decode()}


def test_a_stream_is_pulled_one_event_per_next_through_the_probe(remote, ctx, corpus):
    case = _case(corpus, "stream.openai.chat.real-text-deltas")
    events, probe = sdk_input(ctx, case, case.model.response, stream=True)
    seen = [(item, probe.read) for item in remote.process_stream("openai.chat", {}, events)]
    assert [item for item, _ in seen] == [event.decode() for event in probe.events]
    assert [read for _, read in seen] == list(range(1, probe.total + 1))  # read only as pulled


def test_an_sdk_object_the_harness_did_not_parse_is_refused(remote):
    with pytest.raises(NotJudged, match="not parsed by the harness from a recorded response"):
        remote.process("openai.chat", {}, ChatCompletion.model_construct())


def _exchange(name: str) -> Exchange:
    store = CassetteStore(REPO / "cassettes")
    return Exchange(name, store.path_of(name), store.load(name), "none", "openai.chat", "openai", {})


def test_e2e_requests_go_through_the_cases_client_byte_for_byte(remote):
    exchange = _exchange(CHAT)
    value = remote.execute("openai.chat", {"model": {"id": "gpt-x"}}, [], e2e_client("openai.chat", exchange))
    assert [(sent.method, sent.uri, sent.json) for sent in exchange.sent] == [
        ("POST", "https://api.openai.com/v1/chat/completions", {"model": "gpt-x", "messages": []})
    ]
    lengths = [value for name, value in exchange.sent[0].headers if name == "content-length"]
    assert lengths == [str(len(exchange.sent[0].body or b""))]  # set once, by the HTTP client
    recorded = exchange.cassette.interactions[0].response
    assert value == {"status": recorded.status, "body": recorded.body.decode()}


def test_an_e2e_stream_comes_back_as_an_iterator_of_its_items(remote):
    exchange = _exchange(CHAT_STREAM)
    agent = {"model": {"id": "gpt-x", "options": {"additionalProperties": {"stream": True}}}}
    value = remote.execute("openai.chat", agent, [], e2e_client("openai.chat", exchange))
    assert isinstance(value, Iterator)
    (probe,) = exchange.probes
    assert list(value) == [event.decode() for event in probe.events]
    assert probe.read == probe.total


def test_an_e2e_request_nothing_answers_fails_in_the_runtime_with_the_reason(remote):
    exchange = _exchange(CHAT)
    client = e2e_client("openai.chat", exchange)
    remote.execute("openai.chat", {"model": {"id": "gpt-x"}}, [], client)  # uses the one interaction
    with pytest.raises(ConnectionError, match="matches no recorded interaction"):
        remote.execute("openai.chat", {"model": {"id": "gpt-x"}}, [], client)
    assert len(exchange.unmatched) == 1


@pytest.mark.parametrize("inputs", ["recorded", "json"])
def test_the_python_helper_parses_recorded_inputs_and_answers_as_in_process(ctx, corpus, tmp_path, inputs):
    """The Python helper asks for recorded inputs by default: each SDK argument crosses as the recorded
    response, a stream as its head and `chunk`s (no JSON of the harness's objects), and its SDK's
    objects give the reference the answers it gives in-process; `--inputs json` as before."""
    from wireconf.reference_impl.adapter import ReferenceAdapter

    transcript = tmp_path / "transcript.jsonl"
    option = "" if inputs == "recorded" else "--inputs json "
    serve = f"{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve {option}reference"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
        remote = ExecAdapter(serve)
    local = ReferenceAdapter()
    try:
        assert remote.hello.get("inputs", "json") == inputs
        case = _case(corpus, "process.openai.chat.real-plain-text")
        args = ("openai.chat", {})
        answers = [
            adapter.process(*args, sdk_input(ctx, case, case.model.response, stream=False)[0])
            for adapter in (remote, local)
        ]
        assert answers[0] == answers[1]
        case = _case(corpus, "stream.openai.chat.real-text-deltas")
        items = [
            list(adapter.process_stream(*args, sdk_input(ctx, case, case.model.response, stream=True)[0]))
            for adapter in (remote, local)
        ]
        assert items[0] == items[1] and items[0]
    finally:
        remote.close()
    sent = [json.loads(line)["message"] for line in transcript.read_text(encoding="utf-8").splitlines()]
    calls = [m for m in sent if m["type"] == "call"]
    events = [e for m in sent if m["type"] == "events" for e in m["events"]]
    if inputs == "recorded":
        assert set(calls[0]["args"]["response"]) >= {"status", "headers", "body"}
        assert events and all("chunk" in e and "event" not in e for e in events)
    else:
        assert "choices" in calls[0]["args"]["response"]
        assert events and all("event" in e for e in events)
