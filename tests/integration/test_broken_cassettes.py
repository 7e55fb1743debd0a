"""A broken cassette is an error of the cassette, named, never a verdict on the runtime: a stream cut in
the middle of an event, a body that is not the JSON it says it is, a content type that disagrees with
the body."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, small_corpus
from wireconf.cassettes.format import decode_body

STREAM_CASSETTE = (
    "openai/chat_stream__01__opentelemetry-python-contrib__"
    "test_chat_completion_with_raw_response_streaming_i0"
)
PLAIN_CASSETTE = "openai/chat__01__opentelemetry-python-contrib__test_chat_completion_with_content_i0"

RULES = """\
rules:
  - id: 8.6/content-deltas
    level: MUST
    basis: text
    source: {seed: s8.txt, section: '8.6'}
    statement: Content deltas are yielded as they come.
"""

CASES = """\
x-agent: &agent {model: {id: gpt-4o-mini, provider: openai, apiType: chat}}
x-stream-agent: &stream-agent
  model:
    id: gpt-4o-mini
    options: {additionalProperties: {stream: true, stream_options: {include_usage: true}}}
x-deltas: &deltas ["This", " is", " a", " test", ".", " How", " can", " I", " assist", " you", " today", "?"]
x-request: &request
  model: gpt-4o-mini
  messages: [{role: user, content: Say this is a test}]
  stream: true
  stream_options: {include_usage: true}
x-say: &say [{role: user, content: [{kind: text, value: Say this is a test}]}]
cases:
  - {id: stream.openai.chat.on-broken, kind: stream, api: openai.chat, rules: [8.6/content-deltas],
     agent: *agent, response: {cassette: openai/broken-stream}, expect: *deltas}
  - {id: process.openai.chat.on-broken, kind: process, api: openai.chat, rules: [8.6/content-deltas],
     agent: *agent, response: {cassette: openai/broken-plain}, expect: This is a test.}
  - {id: e2e.openai.chat.stream-on-broken, kind: e2e, api: openai.chat, rules: [8.6/content-deltas],
     agent: *stream-agent, messages: *say, cassette: openai/broken-stream, expect_request: *request,
     incremental: true, expect: *deltas}
  - id: e2e.openai.chat.plain-on-broken
    kind: e2e
    api: openai.chat
    rules: [8.6/content-deltas]
    agent: *agent
    messages: *say
    cassette: openai/broken-plain
    expect_request: {model: gpt-4o-mini, messages: [{role: user, content: Say this is a test}]}
    expect: This is a test.
  - {id: wire.openai.chat.fine, kind: wire, api: openai.chat, rules: [8.6/content-deltas], agent: *agent,
     expect: {model: gpt-4o-mini, messages: []}}
"""
IDS = ("stream.openai.chat.on-broken", "e2e.openai.chat.stream-on-broken")
PLAIN_IDS = ("process.openai.chat.on-broken", "e2e.openai.chat.plain-on-broken")


def _copy(cassettes: Path, source: str, target: str, body: bytes, content_type: str | None = None) -> None:
    """``source`` copied to ``target`` with its response body (and content type) replaced."""
    data = yaml.safe_load((REPO / "cassettes" / f"{source}.yaml").read_text())
    response = data["interactions"][0]["response"]
    response["body"] = {"string": body.decode()}
    if content_type is not None:
        response["headers"]["content-type"] = content_type
    path = cassettes / f"{target}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=1_000_000))


def _body(source: str) -> bytes:
    data = yaml.safe_load((REPO / "cassettes" / f"{source}.yaml").read_text())
    return decode_body(data["interactions"][0]["response"]["body"]) or b""


def _run(pytester, run_corpus, stream_body: bytes, plain_body: bytes, stream_type=None, plain_type=None):
    cassettes = pytester.path / "cassettes"
    _copy(cassettes, STREAM_CASSETTE, "openai/broken-stream", stream_body, stream_type)
    _copy(cassettes, PLAIN_CASSETTE, "openai/broken-plain", plain_body, plain_type)
    corpus = small_corpus(pytester.path / "corpus", RULES, "cases.yaml", CASES)
    return run_corpus("--impl=tests.fakes.buffers_stream:adapter", f"--cassettes={cassettes}", target=corpus)


def test_a_stream_cut_mid_event_and_a_body_that_is_not_json_are_errors_of_the_cassette(pytester, run_corpus):
    stream = _body(STREAM_CASSETTE)
    cut = stream[: stream.rindex(b'"finish_reason"')]  # the last chunk, cut in the middle of its JSON
    plain = _body(PLAIN_CASSETTE)[:-25]
    run = _run(pytester, run_corpus, cut, plain)
    assert run.outcomes["wire.openai.chat.fine"] == "passed"
    for case in (*IDS, *PLAIN_IDS):
        assert run.outcomes[case] == "error", (case, run.longreprs.get(case))
        text = run.longreprs[case]
        assert "broken-" in text and "cassette" in text and "the adapter raised" not in text, text
    assert "event 14 of 14 is cut short or not JSON" in run.longreprs[IDS[0]]
    assert "is not valid JSON" in run.longreprs[PLAIN_IDS[0]]


@pytest.mark.parametrize(
    ("stream_type", "plain_type", "said"),
    [
        ("application/json", None, "labelled application/json, but its body is an event stream"),
        (None, "text/event-stream", "labelled text/event-stream, but its body is JSON"),
    ],
)
def test_a_content_type_that_disagrees_with_the_body_is_an_error(
    pytester, run_corpus, stream_type, plain_type, said
):
    run = _run(pytester, run_corpus, _body(STREAM_CASSETTE), _body(PLAIN_CASSETTE), stream_type, plain_type)
    stream_or_process, e2e = IDS if stream_type else PLAIN_IDS
    assert run.outcomes[stream_or_process] == "error"
    assert run.outcomes[e2e] == "error", run.longreprs.get(e2e)  # not judged on what the label says
    assert said in run.longreprs[e2e]
    assert run.outcomes["wire.openai.chat.fine"] == "passed"
