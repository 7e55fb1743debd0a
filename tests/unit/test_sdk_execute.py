"""The reference's e2e ``execute``: every api's body goes through its SDK exactly as it was built."""

from __future__ import annotations

import json

import httpx2
import pytest

from wireconf.providers import anthropic, google, openai
from wireconf.reference_impl.sdk_execute import execute_with

MESSAGE = {"role": "assistant", "content": "ok"}
CHAT = {
    "id": "c",
    "object": "chat.completion",
    "created": 1,
    "model": "m",
    "choices": [{"index": 0, "message": MESSAGE, "finish_reason": "stop"}],
}
GEMINI = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}}]}
ANSWERS = {
    "/v1/chat/completions": CHAT,
    "/v1/embeddings": {
        "object": "list",
        "data": [{"object": "embedding", "index": 0, "embedding": [0.5]}],
        "model": "m",
        "usage": {"prompt_tokens": 1, "total_tokens": 1},
    },
    "/v1/images/generations": {"created": 1, "data": [{"url": "https://x/y.png"}]},
    "/v1/responses": {
        "id": "r",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "m",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    },
    "/v1/messages": {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}


def capture(factory):
    sent = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        sent.append((request.url.path, json.loads(request.read())))
        if request.url.path.endswith(":streamGenerateContent"):
            return httpx2.Response(
                200, headers={"content-type": "text/event-stream"}, content=b"data: {}\r\n\r\n"
            )
        body = GEMINI if ":" in request.url.path else ANSWERS[request.url.path]
        return httpx2.Response(200, json=body)

    return factory(httpx2.MockTransport(answer)), sent


CALLS = [
    (
        "openai.chat",
        {"model": "m", "messages": [], "service_tier": None, "x_vendor": {"a": 1}},
        "/v1/chat/completions",
    ),
    ("openai.embeddings", {"model": "m", "input": ["a", "b"], "encoding_format": "float"}, "/v1/embeddings"),
    ("openai.images", {"model": "m", "prompt": "p", "size": "256x256"}, "/v1/images/generations"),
    ("openai.responses", {"model": "m", "input": [{"role": "user", "content": "hi"}]}, "/v1/responses"),
    (
        "anthropic.messages",
        {"model": "m", "max_tokens": 5, "messages": [], "system": "s", "top_k": 3},
        "/v1/messages",
    ),
]


@pytest.mark.parametrize(("api", "body", "path"), CALLS, ids=[c[0] for c in CALLS])
def test_the_built_body_is_the_body_sent(api, body, path):
    client, sent = capture(anthropic.client if api.startswith("anthropic") else openai.client)
    result = execute_with(
        api, {"model": {"id": "m"}}, [], client, lambda a, m: body, lambda a, r: "processed", None
    )
    assert result == "processed"
    assert sent == [(path, body)]


def test_a_gemini_rest_body_is_mapped_onto_generate_content_and_back():
    client, sent = capture(google.client)
    body = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "systemInstruction": {"parts": [{"text": "be brief"}]},
        "generationConfig": {"temperature": 0.5, "maxOutputTokens": 10, "stopSequences": ["x"]},
    }
    seen = []
    execute_with(
        "gemini.generate_content",
        {"model": {"id": "gemini-x"}},
        [],
        client,
        lambda a, m: body,
        lambda a, r: seen.append(r.text),
        None,
    )
    ((path, sent_body),) = sent
    assert sent_body == body and path.endswith("/models/gemini-x:generateContent") and seen == ["ok"]


def test_a_streamed_body_uses_the_streaming_call_and_the_stream_function():
    client, sent = capture(google.client)
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "stream": True}
    items = execute_with(
        "gemini.generate_content",
        {"model": {"id": "g"}},
        [],
        client,
        lambda a, m: body,
        lambda a, r: "not used",
        lambda a, events: (e for e in events),
    )
    assert sent == [] and len(list(items)) == 1  # google-genai sends on the first next()
    assert sent[0][0].endswith("/models/g:streamGenerateContent") and "stream" not in sent[0][1]


def test_gemini_streams_when_the_options_ask_for_it():
    """7.9.7/stream-selects-endpoint: the built body holds no `stream`; the option picks the method."""
    client, sent = capture(google.client)
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    agent = {"model": {"id": "g", "options": {"additionalProperties": {"stream": True}}}}
    items = execute_with(
        "gemini.generate_content",
        agent,
        [],
        client,
        lambda a, m: body,
        lambda a, r: "not used",
        lambda a, events: (e for e in events),
    )
    assert len(list(items)) == 1
    assert sent[0][0].endswith("/models/g:streamGenerateContent") and "stream" not in sent[0][1]


def test_a_stream_without_a_stream_function_says_so():
    client, _ = capture(openai.client)
    with pytest.raises(NotImplementedError, match=r"no stream function for openai\.chat"):
        execute_with(
            "openai.chat",
            {"model": {"id": "m"}},
            [],
            client,
            lambda a, m: {"model": "m", "messages": [], "stream": True},
            lambda a, r: None,
            None,
        )
