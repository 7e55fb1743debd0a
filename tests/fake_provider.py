"""A fake provider server: a real HTTP server on 127.0.0.1 that answers like OpenAI, Anthropic and Gemini.

It speaks the shapes the official SDKs parse: OpenAI chat (and its stream), embeddings, images,
Responses (and its stream); Anthropic messages (and SSE, with padded ``data:`` lines); Gemini
generateContent and streamGenerateContent with ``alt=sse`` (CRLF framing). It checks the keys the way
the providers do (bearer token; ``x-api-key`` or bearer; ``x-goog-api-key`` or ``key=``), so a test
proves the SDK really sent them, and it answers with secret-bearing headers (organisation and project
ids, cookies, even the key itself), a signed image URL (``sig=``), and, when asked, a key-shaped string
in the answer text: everything a recording must never write. ``hang_streams`` makes it send the first
events of a stream and then wait, so that a test can kill a recording midway.

A chat message that starts with ``plant:<place>`` makes the answer carry the caller's key in that place
(``PLACES``): in the JSON answer, base64- or hex-encoded, in a body that is not UTF-8 or is cut in the
middle of a character, streamed four characters at a time, ``\\u``-escaped in one stream event, spelled
by choice 0 of an ``n=2`` stream between choice 1's deltas, or echoed in an error.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from wireconf.providers.registry import PROVIDERS

ORG_ID = "org-PLANTEDorganisation000000"
PROJECT_ID = "proj_PLANTEDproject00000000000"
COOKIE = "__cf_bm=PLANTEDcookievalue0123456789; path=/; HttpOnly"
SIGNATURE = "PLANTEDsasSignature0123456789abcdef"
LEAKED_KEY = "sk-proj-PLANTEDleakInTheAnswerText0123456789abcdefXYZ"


@dataclass
class Keys:
    openai: str
    anthropic: str
    gemini: str


KEY_VARIABLES = tuple(name for provider in PROVIDERS.values() for name in provider.key_variables)
"""Every provider's key variables (the records'): a test starts with none of them set."""
PLACES = ("json", "base64", "hex", "not-utf8", "cut", "stream", "escaped", "n2", "error")
"""Where a ``plant:<place>`` chat message makes the answer carry the key."""


@dataclass
class FakeProvider:
    keys: Keys
    leak_in_answer: bool = False
    hang_streams: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)
    stream_started: threading.Event = field(default_factory=threading.Event)
    stream_finished: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    barrier: threading.Barrier | None = None
    """When set, every answer waits until the barrier's parties have all sent a request."""
    _server: ThreadingHTTPServer | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.server_address[1])

    def environ(self) -> dict[str, str]:
        """The variables a user sets to point the official SDKs at this server with these keys."""
        base = f"http://127.0.0.1:{self.port}"
        return {
            "OPENAI_API_KEY": self.keys.openai,
            "OPENAI_BASE_URL": f"{base}/v1",
            "OPENAI_ORG_ID": ORG_ID,
            "OPENAI_PROJECT_ID": PROJECT_ID,
            "ANTHROPIC_API_KEY": self.keys.anthropic,
            "ANTHROPIC_BASE_URL": base,
            "GEMINI_API_KEY": self.keys.gemini,
            "GOOGLE_GEMINI_BASE_URL": f"{base}/",
        }

    def start(self) -> FakeProvider:
        provider = self

        class Handler(_Handler):
            fake = provider

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="fake-provider", daemon=True).start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


PLANTED_KEYS = Keys(
    openai="sk-proj-PLANTEDopenaiKey0123456789abcdefABCDEF",
    anthropic="sk-ant-api03-PLANTEDanthropicKey0123456789abcdef",
    gemini="AIzaPLANTEDgeminiKey0123456789abcdefghi",
)


@pytest.fixture
def fake_provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    """The server started, and the environment of a user pointing the SDKs at it with planted keys."""
    provider = FakeProvider(PLANTED_KEYS).start()
    for name in KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in provider.environ().items():
        monkeypatch.setenv(name, value)
    yield provider
    provider.stop()


# --- answers ----------------------------------------------------------------------------------------


def _last_text(body: dict[str, Any]) -> str:
    """The text of the last user turn, whatever the provider's request shape."""
    for key in ("messages", "contents", "input"):
        turns = body.get(key)
        if isinstance(turns, str):
            return turns
        for turn in reversed(turns or []):
            content = turn.get("content", turn.get("parts")) if isinstance(turn, dict) else None
            if isinstance(content, str):
                return content
            for part in content or []:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    return part["text"]
    return str(body.get("prompt") or body.get("input") or "")


def answer_text(body: dict[str, Any], leak: bool) -> str:
    text = f"You said: {_last_text(body)}"
    return f"{text} (debug: {LEAKED_KEY})" if leak else text


def _words(text: str) -> list[str]:
    return re.findall(r"\S+\s*", text) or [text]


def openai_chat(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake0001",
        "object": "chat.completion",
        "created": 1767225600,
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9},
    }


def openai_chat_events(body: dict[str, Any], text: str) -> list[str]:
    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake0002",
            "object": "chat.completion.chunk",
            "created": 1767225600,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": word}) for word in _words(text)]
    chunks.append(chunk({}, "stop"))
    if (body.get("stream_options") or {}).get("include_usage"):
        chunks.append({**chunk({}), "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 4}})
    return [f"data: {json.dumps(c)}\n\n" for c in chunks] + ["data: [DONE]\n\n"]


def _delta_event(body: dict[str, Any], piece: str, index: int = 0) -> str:
    chunk = {
        "id": "chatcmpl-fake0002",
        "object": "chat.completion.chunk",
        "created": 1767225600,
        "model": body.get("model", "fake"),
        "choices": [{"index": index, "delta": {"content": piece}, "logprobs": None, "finish_reason": None}],
    }
    return f"data: {json.dumps(chunk)}\n\n"


def escaped_event(body: dict[str, Any], text: str) -> str:
    """One delta event whose content is ``text`` with every character ``\\u``-escaped."""
    escaped = "".join(f"\\u{ord(c):04x}" for c in text)
    return _delta_event(body, "ESCAPED").replace('"ESCAPED"', f'"{escaped}"')


def interleaved_events(body: dict[str, Any], text: str) -> list[str]:
    """An ``n=2`` stream: choice 0 spells ``text`` four characters at a time, between choice 1's deltas."""
    events = []
    for at in range(0, len(text), 4):
        events += [_delta_event(body, text[at : at + 4], 0), _delta_event(body, "blah", 1)]
    return events


def openai_embeddings(body: dict[str, Any]) -> dict[str, Any]:
    inputs = body.get("input")
    count = len(inputs) if isinstance(inputs, list) else 1
    return {
        "object": "list",
        "data": [
            {"object": "embedding", "index": i, "embedding": [0.25, -0.5, 0.125 * (i + 1)]}
            for i in range(count)
        ],
        "model": body.get("model", "fake"),
        "usage": {"prompt_tokens": 3, "total_tokens": 3},
    }


def openai_images(body: dict[str, Any]) -> dict[str, Any]:
    url = f"https://fake.blob.example/private/{ORG_ID}/img-fake.png?st=2026-01-01T00%3A00%3A00Z&sp=r&sig={SIGNATURE}"
    return {"created": 1767225600, "data": [{"url": url, "revised_prompt": str(body.get("prompt", ""))}]}


def _response_message(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_fake0003",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def openai_response(body: dict[str, Any], text: str, status: str = "completed") -> dict[str, Any]:
    return {
        "id": "resp_fake0003",
        "object": "response",
        "created_at": 1767225600,
        "status": status,
        "model": body.get("model", "fake"),
        "output": [_response_message(text)] if status == "completed" else [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {"input_tokens": 5, "output_tokens": 4, "total_tokens": 9},
    }


def openai_response_events(body: dict[str, Any], text: str) -> list[str]:
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": openai_response(body, "", "in_progress")}
    ]
    for word in _words(text):
        events.append(
            {
                "type": "response.output_text.delta",
                "item_id": "msg_fake0003",
                "output_index": 0,
                "content_index": 0,
                "delta": word,
            }
        )
    events.append({"type": "response.completed", "response": openai_response(body, text)})
    return [
        f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': n})}\n\n"
        for n, e in enumerate(events)
    ]


def anthropic_message(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "msg_fake0004",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake"),
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 4},
    }


def anthropic_events(body: dict[str, Any], text: str) -> list[str]:
    start = {**anthropic_message(body, ""), "content": [], "stop_reason": None}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        ("ping", {"type": "ping"}),
    ]
    for word in _words(text):
        events.append(
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": word}},
            )
        )
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 4},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    # Anthropic pads some data lines with trailing spaces; so does this server, on every other event.
    return [
        f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}{'   ' if i % 2 else ''}\n\n"
        for i, (name, data) in enumerate(events)
    ]


def gemini_response(body: dict[str, Any], text: str, model: str) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 4, "totalTokenCount": 9},
        "modelVersion": model,
        "responseId": "fake0005",
    }


def gemini_events(body: dict[str, Any], text: str, model: str) -> list[str]:
    chunks = []
    for word in _words(text):
        chunk = gemini_response(body, word, model)
        chunk["candidates"][0].pop("finishReason")
        chunks.append(chunk)
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    return [f"data: {json.dumps(c)}\r\n\r\n" for c in chunks]


# --- the HTTP side ---------------------------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    fake: FakeProvider
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _secret_headers(self, key: str) -> list[tuple[str, str]]:
        return [
            ("openai-organization", ORG_ID),
            ("openai-project", PROJECT_ID),
            ("anthropic-organization-id", ORG_ID),
            ("set-cookie", COOKIE),
            ("x-request-id", "req_fake0123456789"),
            ("openai-processing-ms", "42"),
            ("x-echo-key", key),
        ]

    def _send(self, status: int, payload: Any, key: str) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in self._secret_headers(key):
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, events: list[str], key: str) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("transfer-encoding", "chunked")
        for name, value in self._secret_headers(key):
            self.send_header(name, value)
        self.end_headers()
        try:
            for index, event in enumerate(events):
                data = event.encode()
                self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
                self.wfile.flush()
                if self.fake.hang_streams and index == 1:
                    self.fake.stream_started.set()
                    self.fake.release.wait(60)
            self.wfile.write(b"0\r\n\r\n")
        finally:
            self.fake.stream_finished.set()

    def _raw(self, status: int, content_type: str, data: bytes, key: str) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        for name, value in self._secret_headers(key):
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _planted(self, place: str, body: dict[str, Any], key: str) -> None:
        """An answer with ``key`` in ``place`` (one of ``PLACES``)."""
        import base64

        secret = key.encode()
        if place == "plain":  # nothing but the secret headers every answer carries
            self._send(200, openai_chat(body, "a harmless answer"), key)
        elif place == "json":
            self._send(200, openai_chat(body, f"your key is {key}"), key)
        elif place == "base64":
            self._send(200, openai_chat(body, base64.b64encode(b"key=" + secret).decode()), key)
        elif place == "hex":
            self._send(200, openai_chat(body, secret.hex()), key)
        elif place == "not-utf8":
            self._raw(200, "application/octet-stream", b"\xff\xfe" + secret + b"\x80\x81", key)
        elif place == "cut":
            self._raw(200, "text/plain", ("caf\u00e9 " + key + " caf\u00e9").encode()[:-1], key)
        elif place == "stream":
            pieces = [key[i : i + 4] for i in range(0, len(key), 4)]
            events = openai_chat_events(body, "")[:1] + [_delta_event(body, p) for p in pieces]
            self._stream([*events, "data: [DONE]\n\n"], key)
        elif place == "escaped":
            self._stream([escaped_event(body, key), "data: [DONE]\n\n"], key)  # the only content string
        elif place == "n2":
            events = openai_chat_events(body, "")[:1] + interleaved_events(body, key)
            self._stream([*events, "data: [DONE]\n\n"], key)
        elif place == "error":
            self._send(401, {"error": {"message": f"Incorrect API key provided: {key}"}}, key)
        else:
            self._send(400, {"error": {"message": f"no such place {place!r}"}}, key)

    def _key(self, provider: str, query: dict[str, list[str]]) -> str | None:
        auth = self.headers.get("authorization", "")
        bearer = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
        if provider == "openai":
            return bearer
        if provider == "anthropic":
            return self.headers.get("x-api-key") or bearer
        return self.headers.get("x-goog-api-key") or (query.get("key") or [None])[0]

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        self.fake.requests.append(
            {"path": parts.path, "query": query, "body": body, "headers": dict(self.headers)}
        )
        gemini = re.fullmatch(
            r"/v1(?:beta)?/models/([^:/]+):(generateContent|streamGenerateContent)", parts.path
        )
        provider = "gemini" if gemini else ("anthropic" if parts.path == "/v1/messages" else "openai")
        key = self._key(provider, query)
        expected = getattr(self.fake.keys, provider)
        if self.fake.barrier is not None:
            self.fake.barrier.wait(60)
        if key != expected:
            self._send(401, {"error": {"message": "invalid key", "type": "authentication_error"}}, "")
            return
        text = answer_text(body, self.fake.leak_in_answer)
        stream = body.get("stream") is True
        place = _last_text(body).removeprefix("plant:") if _last_text(body).startswith("plant:") else None
        if place is not None and parts.path == "/v1/chat/completions":
            self._planted(place, body, key)
            return
        if gemini:
            model = gemini.group(1)
            if gemini.group(2) == "streamGenerateContent":
                self._stream(gemini_events(body, text, model), key)
            else:
                self._send(200, gemini_response(body, text, model), key)
        elif parts.path == "/v1/messages":
            self._stream(anthropic_events(body, text), key) if stream else self._send(
                200, anthropic_message(body, text), key
            )
        elif parts.path == "/v1/chat/completions":
            self._stream(openai_chat_events(body, text), key) if stream else self._send(
                200, openai_chat(body, text), key
            )
        elif parts.path == "/v1/responses":
            self._stream(openai_response_events(body, text), key) if stream else self._send(
                200, openai_response(body, text), key
            )
        elif parts.path == "/v1/embeddings":
            self._send(200, openai_embeddings(body), key)
        elif parts.path == "/v1/images/generations":
            self._send(200, openai_images(body), key)
        else:
            self._send(404, {"error": {"message": f"no route {parts.path}"}}, key)
