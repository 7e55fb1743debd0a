"""The minimal response of each api (``wireconf.emulator.minimal``), what a ``wire`` case's site
answers: each form, JSON and event stream, read by the api's official SDK pointed at the site, through
the same call a user makes, without error; a streaming request gets the stream, any other the JSON;
a request that is not the api's is refused."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.fakes.endpoint_reference import client
from wireconf.emulator.answers import CapturedRequest, Refused
from wireconf.emulator.minimal import MINIMAL, MinimalAnswers, asks_for_stream, minimal
from wireconf.emulator.server import Emulator
from wireconf.providers.registry import APIS

FORMS = [
    (api, stream)
    for api, (_, events) in MINIMAL.items()
    for stream in (False, True)
    if stream is False or events
]


@pytest.fixture(scope="module")
def emulator():
    with Emulator() as running:
        yield running


def test_every_api_has_a_minimal_response_and_every_stream_a_minimal_stream():
    assert set(MINIMAL) == set(APIS)
    assert {api for api, (_, events) in MINIMAL.items() if events} == {
        api for api in APIS if APIS[api].streams
    }


def test_an_api_without_a_stream_answers_a_request_for_one_with_its_json():
    """A runtime that asks an embeddings endpoint for a stream (a deviation the wire case judges) gets
    the api's minimal JSON, so the request it sent is judged, not an error of the emulator."""
    request = _request(
        "openai.embeddings", "/v1/embeddings", body={"model": "m", "input": "x", "stream": True}
    )
    assert asks_for_stream(request)
    assert not APIS["openai.embeddings"].streams
    answered = minimal("openai.embeddings", True)
    assert answered.status == 200 and not answered.is_event_stream
    assert json.loads(answered.body) == MINIMAL["openai.embeddings"][0]


@pytest.mark.parametrize(("api", "stream"), FORMS)
def test_the_official_sdk_reads_the_minimal_response(emulator, api, stream):
    with emulator.serving(api, MinimalAnswers(api)) as site:
        sdk = client(api, site.endpoint())  # kept: google-genai's stream sends on its first next()
        answer = APIS[api].call(sdk, {}, stream)
        read: Any = list(answer) if stream else answer
        assert [r.api for r in site.captured] == [api]
        assert asks_for_stream(site.captured[0]) is stream
        assert site.refused == []
    if stream:
        assert read, "the SDK read no event of the minimal stream"
    else:
        assert read is not None
    body = minimal(api, stream)
    assert body.problem is None and body.is_event_stream is stream


def _request(api: str, path: str, query: str = "", body: Any = None) -> CapturedRequest:
    data = json.dumps(body).encode() if body is not None else b""
    matched = api if APIS[api].route.match(path) else None
    return CapturedRequest("POST", "https://provider" + path, path, query, (), data, matched)


def test_a_stream_is_asked_for_as_each_api_record_says():
    assert asks_for_stream(_request("openai.chat", "/v1/chat/completions", body={"stream": True}))
    assert not asks_for_stream(_request("openai.chat", "/v1/chat/completions", body={"stream": False}))
    assert asks_for_stream(_request("anthropic.messages", "/v1/messages", body={"stream": True}))
    gemini = "gemini.generate_content"
    assert asks_for_stream(_request(gemini, "/v1beta/models/m:streamGenerateContent", "alt=sse"))
    # Gemini's stream is another method, never a body field
    assert not asks_for_stream(_request(gemini, "/v1beta/models/m:generateContent", body={"stream": True}))


def test_a_request_that_is_not_the_apis_is_refused(emulator):
    with emulator.serving("openai.chat", MinimalAnswers("openai.chat")) as site:
        reply = MinimalAnswers("openai.chat").respond(_request("openai.chat", "/v1/files"))
        assert isinstance(reply, Refused)
        with pytest.raises(httpx.HTTPError):
            httpx.post(site.endpoint().api_base_url + "/embeddings", json={})
        assert [r.why for r in site.refused] == ["not the openai.chat endpoint (POST)"]
