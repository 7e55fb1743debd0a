"""Google Gemini: ``google.genai.Client`` over the replay transport, and generateContent."""

from __future__ import annotations

import json
from typing import Any

from harness.sdk.transport import ReplayTransport


def http_module() -> Any:
    """google-genai works with httpx2 when it is installed (its default), else httpx."""
    try:
        import httpx2

        return httpx2
    except ImportError:  # pragma: no cover - depends on the installed SDK generation
        import httpx

        return httpx


def client(transport: Any) -> Any:
    """A real ``google.genai.Client`` (Gemini API, not Vertex) whose HTTP goes to ``transport``."""
    from google import genai
    from google.genai import types

    http_client = http_module().Client(transport=transport)
    return genai.Client(api_key="wireconf-replay", http_options=types.HttpOptions(httpx_client=http_client))


def new_replay() -> tuple[ReplayTransport, Any]:
    replay = ReplayTransport(http_module())
    return replay, client(replay.transport)


def generate_content(sdk: Any, headers: dict[str, str], stream: bool) -> Any:
    """``GenerateContentResponse``, or the iterator of them that ``generate_content_stream`` returns
    (it requests ``alt=sse`` and sends the request on the first ``next()``)."""
    from google.genai import types

    config = types.GenerateContentConfig(http_options=types.HttpOptions(headers=headers))
    if stream:
        return sdk.models.generate_content_stream(model="wireconf-replay", contents="x", config=config)
    return sdk.models.generate_content(model="wireconf-replay", contents="x", config=config)


def sse(events: list[Any]) -> bytes:
    """Gemini's ``alt=sse`` framing: ``data:`` lines separated by CRLF blank lines."""
    return "".join(f"data: {json.dumps(e, ensure_ascii=False)}\r\n\r\n" for e in events).encode("utf-8")
