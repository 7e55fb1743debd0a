"""Recorded bytes go through an SDK once per process; every case still gets an object of its own, equal
to the one the SDK made."""

from __future__ import annotations

import json
import threading

import pytest

from wireconf.cassettes.store import RecordedResponse
from wireconf.sdk.parsed import ParsedResponses
from wireconf.sdk.replay import SdkReplay

CHAT = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-4o-mini",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi"}}],
}


def _recorded(body: dict, request_id: str = "req-1") -> RecordedResponse:
    headers = {"content-type": ["application/json"], "x-request-id": [request_id]}
    return RecordedResponse(200, headers, json.dumps(body).encode())


def test_the_same_bytes_give_equal_objects_of_their_own():
    replay = SdkReplay()
    first = replay.response_object("openai.chat", _recorded(CHAT))
    second = replay.response_object("openai.chat", _recorded(CHAT))
    assert type(first).__name__ == "ChatCompletion" and type(second) is type(first)
    assert second == first and second is not first
    assert second.choices[0].message is not first.choices[0].message
    assert second._request_id == first._request_id == "req-1"  # what the SDK read from the headers
    assert second.model_fields_set == first.model_fields_set
    first.choices[0].message.content = "changed by an adapter"
    third = replay.response_object("openai.chat", _recorded(CHAT))
    assert third.choices[0].message.content == "Hi"


def test_different_headers_or_bodies_are_parsed_apart():
    replay = SdkReplay()
    assert replay.response_object("openai.chat", _recorded(CHAT, "req-2"))._request_id == "req-2"
    other = replay.response_object("openai.chat", _recorded({**CHAT, "model": "gpt-4o"}))
    assert other.model == "gpt-4o"


def _counting(value):
    calls = []

    def parse():
        calls.append(1)
        return value

    return parse, calls


def test_parse_runs_once_per_distinct_response_and_copies_are_handed_out():
    cache = ParsedResponses()
    parse, calls = _counting({"a": [1, 2]})
    got = [cache.get("openai.chat", _recorded(CHAT), parse) for _ in range(3)]
    assert len(calls) == 1
    assert got[0] == got[1] == got[2] == {"a": [1, 2]}
    assert got[0] is not got[1] and got[0]["a"] is not got[1]["a"]


def test_a_parse_error_is_not_kept():
    cache = ParsedResponses()
    calls = []

    def parse():
        calls.append(1)
        raise ValueError("the SDK refused")

    for _ in range(2):
        with pytest.raises(ValueError, match="refused"):
            cache.get("openai.chat", _recorded(CHAT), parse)
    assert len(calls) == 2 and len(cache) == 0


def test_an_object_that_cannot_be_copied_is_parsed_for_every_caller():
    cache = ParsedResponses()
    parse, calls = _counting(threading.Lock())  # locks cannot be pickled
    first = cache.get("openai.chat", _recorded(CHAT), parse)
    second = cache.get("openai.chat", _recorded(CHAT), parse)
    assert len(calls) == 2 and len(cache) == 0 and first is second  # (the same lock: parse returned it)


def test_the_least_recently_used_response_goes_first():
    cache = ParsedResponses(max_kept=2)
    for request_id in ("a", "b", "a", "c"):
        cache.get("openai.chat", _recorded(CHAT, request_id), lambda: {})
    parse, calls = _counting({})
    cache.get("openai.chat", _recorded(CHAT, "a"), parse)
    assert calls == []  # "a" was used after "b", so "b" went when "c" came
    cache.get("openai.chat", _recorded(CHAT, "b"), parse)
    assert calls == [1]


def test_keep_parses_ahead_once_and_later_callers_get_objects_of_their_own():
    cache = ParsedResponses()
    parse, calls = _counting({"a": [1, 2]})
    cache.keep("openai.chat", _recorded(CHAT), parse)
    cache.keep("openai.chat", _recorded(CHAT), parse)
    first = cache.get("openai.chat", _recorded(CHAT), parse)
    second = cache.get("openai.chat", _recorded(CHAT), parse)
    assert len(calls) == 1 and first == second == {"a": [1, 2]} and first is not second


def test_the_pytest_process_parses_the_cases_responses_before_the_runner_forks(pytester, monkeypatch):
    """What the SDK builds on first use is built once, in the pytest process, so that every fork (and
    every later session of the process) starts with it instead of redoing it inside its cases."""
    from pathlib import Path

    from wireconf.sdk import replay

    corpus = Path(__file__).resolve().parents[2] / "cases"
    monkeypatch.setattr(replay, "_PARSED", ParsedResponses())
    result = pytester.runpytest_inprocess(
        str(corpus / "process"), "-p", "no:cacheprovider", "--case-runner", "process", "-k", "openai and chat"
    )
    assert result.ret == 0
    assert len(replay._PARSED) > 0  # the forked runner's own parses would have died with it
