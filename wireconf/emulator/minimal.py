"""A minimal valid response of each api, for a ``wire`` case run against the emulator.

A ``wire`` case judges the request a runtime sends, not what it does with the answer; but a runtime
pointed at a base URL waits for one, and must get a response its SDK reads without error, or it may
retry, raise or never finish. So each api's site answers every request with the least its provider
documents as a complete response: no content, no tool call (a runtime with a tool loop stops), as JSON,
or as the api's event stream when the request asked for one (``asks_for_stream``, by the api record's
``Route``). The stream is framed by the api record's own ``sse`` framing. Each form is checked by a test
to parse in the api's official SDK (``tests/unit/test_minimal_responses.py``); an api record can point
its ``minimal`` here.

Sources (the fields each reference marks required): OpenAI's OpenAPI document
(``CreateChatCompletionResponse``, ``CreateChatCompletionStreamResponse``, ``CreateEmbeddingResponse``,
``ImagesResponse``, ``ImageGenCompletedEvent``, ``Response``, ``ResponseCompletedEvent``), Anthropic's
Messages reference (``Message``; streaming: ``message_start``, ``message_delta``, ``message_stop``),
Gemini's ``GenerateContentResponse``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from urllib.parse import parse_qsl

from wireconf.cassettes.store import RecordedResponse
from wireconf.core.untyped import JSON
from wireconf.emulator.answers import API_METHOD, CapturedRequest, Refused, Reply, answer
from wireconf.emulator.routes import EmulatorError
from wireconf.providers.registry import APIS

MODEL = "wireconf-minimal"

_CHAT: JSON = {
    "id": "chatcmpl-wireconf",
    "object": "chat.completion",
    "created": 0,
    "model": MODEL,
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": ""},
            "finish_reason": "stop",
            "logprobs": None,
        }
    ],
}
_CHAT_EVENTS: list[JSON] = [
    {
        "id": "chatcmpl-wireconf",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": "stop"}],
    }
]
_EMBEDDINGS: JSON = {
    "object": "list",
    "data": [{"object": "embedding", "index": 0, "embedding": [0.0]}],
    "model": MODEL,
    "usage": {"prompt_tokens": 0, "total_tokens": 0},
}
_IMAGES: JSON = {"created": 0, "data": []}
_IMAGES_EVENTS: list[JSON] = [
    {
        "type": "image_generation.completed",
        "b64_json": "",
        "background": "opaque",
        "created_at": 0,
        "output_format": "png",
        "quality": "low",
        "size": "1024x1024",
        "usage": {
            "input_tokens": 0,
            "input_tokens_details": {"image_tokens": 0, "text_tokens": 0},
            "output_tokens": 0,
            "total_tokens": 0,
        },
    }
]
_RESPONSE: JSON = {
    "id": "resp_wireconf",
    "object": "response",
    "created_at": 0,
    "status": "completed",
    "model": MODEL,
    "output": [],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "error": None,
    "incomplete_details": None,
    "instructions": None,
    "metadata": {},
    "temperature": None,
    "top_p": None,
}
_RESPONSES_EVENTS: list[JSON] = [
    {"type": "response.created", "sequence_number": 0, "response": {**_RESPONSE, "status": "in_progress"}},
    {"type": "response.completed", "sequence_number": 1, "response": _RESPONSE},
]
_MESSAGE: JSON = {
    "id": "msg_wireconf",
    "type": "message",
    "role": "assistant",
    "model": MODEL,
    "content": [],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 0, "output_tokens": 0},
}
_MESSAGE_EVENTS: list[JSON] = [
    {"type": "message_start", "message": {**_MESSAGE, "stop_reason": None}},
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 0},
    },
    {"type": "message_stop"},
]
_GENERATE_CONTENT: JSON = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP", "index": 0}
    ],
    "modelVersion": MODEL,
}

MINIMAL: dict[str, tuple[JSON, list[JSON] | None]] = {
    "openai.chat": (_CHAT, _CHAT_EVENTS),
    "openai.embeddings": (_EMBEDDINGS, None),
    "openai.images": (_IMAGES, _IMAGES_EVENTS),
    "openai.responses": (_RESPONSE, _RESPONSES_EVENTS),
    "anthropic.messages": (_MESSAGE, _MESSAGE_EVENTS),
    "gemini.generate_content": (_GENERATE_CONTENT, [_GENERATE_CONTENT]),
}
"""Per api: its minimal JSON body and the events of its minimal stream (``None``: it has no stream)."""


@cache
def minimal(api: str, stream: bool) -> RecordedResponse:
    """The minimal response of ``api``: its JSON body, or (``stream``) its event stream."""
    found = MINIMAL.get(api)
    if found is None:
        raise EmulatorError(f"no minimal response is known for the api {api!r} (wireconf.emulator.minimal)")
    body, events = found
    record = APIS[api]
    if not stream or events is None or record.sse is None:  # (lane execurl's hunk) an api without a
        # stream answers a request that asks for one as it answers any: the request is what is judged
        return RecordedResponse(200, {"content-type": ["application/json"]}, json.dumps(body).encode())
    return RecordedResponse(200, {"content-type": ["text/event-stream"]}, record.sse(events))


def asks_for_stream(request: CapturedRequest) -> bool:
    """Whether ``request`` (to its api's endpoint) asks for the api's event stream: the route's
    ``stream`` group (Gemini's ``:streamGenerateContent``), ``alt=sse``, or, where the route says so,
    ``"stream": true`` in the JSON body."""
    if request.api is None:
        return False
    route = APIS[request.api].route
    match = route.match(request.path)
    if match is not None and "stream" in match.re.groupindex and match.group("stream"):
        return True
    if ("alt", "sse") in parse_qsl(request.query):
        return True
    body = request.json
    return route.stream_field and isinstance(body, dict) and body.get("stream") is True


class MinimalAnswers:
    """Every request to the site's api answered with the api's minimal response (JSON, or its stream
    when the request asks for one); anything else refused."""

    def __init__(self, api: str, make: Callable[[str, bool], RecordedResponse] = minimal) -> None:
        self.api = api
        self._make = make

    def respond(self, request: CapturedRequest) -> Reply:
        if request.api != self.api or request.method != API_METHOD:
            return Refused(request.method, request.url, f"not the {self.api} endpoint ({API_METHOD})")
        return answer(self._make(self.api, asks_for_stream(request)))
