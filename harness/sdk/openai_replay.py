"""OpenAI: ``openai.OpenAI`` over the replay transport, and the call each OpenAI api makes."""

from __future__ import annotations

import json
from typing import Any

from harness.sdk.transport import ReplayTransport, http_module_of


def http_module() -> Any:
    import openai

    return http_module_of(openai.DefaultHttpxClient)


def client(transport: Any) -> Any:
    """A real ``openai.OpenAI`` whose HTTP goes to ``transport`` (a MockTransport or any transport)."""
    import openai

    return openai.OpenAI(
        api_key="wireconf-replay",
        base_url="https://api.openai.com/v1",
        http_client=http_module().Client(transport=transport),
        max_retries=0,
    )


def record_client(transport: Any) -> Any:
    """The client a user with real keys gets: key, organisation, project and base URL from the
    environment (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, …, read by the SDK), HTTP through ``transport``."""
    import openai

    return openai.OpenAI(http_client=http_module().Client(transport=transport), max_retries=0)


def new_replay() -> tuple[ReplayTransport, Any]:
    replay = ReplayTransport(http_module())
    return replay, client(replay.transport)


def chat(sdk: Any, headers: dict[str, str], stream: bool) -> Any:
    """``ChatCompletion``, or ``openai.Stream[ChatCompletionChunk]``."""
    return sdk.chat.completions.create(
        model="wireconf-replay", messages=[], stream=stream, extra_headers=headers
    )


def embeddings(sdk: Any, headers: dict[str, str], stream: bool) -> Any:
    """``CreateEmbeddingResponse`` as recorded (float vectors).

    ``encoding_format="float"`` because without it the SDK asks for base64 and its post-parser raises
    its own error on an empty ``data`` before any processor sees it, so §8.2's empty check could never
    be exercised; with it the SDK hands over the parsed body unchanged, as the recordings were made.
    """
    return sdk.embeddings.create(
        model="wireconf-replay", input="x", encoding_format="float", extra_headers=headers
    )


def images(sdk: Any, headers: dict[str, str], stream: bool) -> Any:
    """``ImagesResponse``, or ``openai.Stream[ImageGenStreamEvent]`` (partial and completed images)."""
    return sdk.images.generate(model="wireconf-replay", prompt="x", stream=stream, extra_headers=headers)


def responses(sdk: Any, headers: dict[str, str], stream: bool) -> Any:
    """``Response``, or ``openai.Stream[ResponseStreamEvent]``."""
    return sdk.responses.create(model="wireconf-replay", input="x", stream=stream, extra_headers=headers)


def _data(event: Any) -> str:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":"))


def chat_sse(events: list[Any]) -> bytes:
    """Chat Completions framing: ``data:`` lines, then ``data: [DONE]``."""
    return ("".join(f"data: {_data(e)}\n\n" for e in events) + "data: [DONE]\n\n").encode("utf-8")


def typed_sse(events: list[Any]) -> bytes:
    """Responses API (and Anthropic) framing: ``event: <type>`` then ``data:``, for each event."""
    return "".join(f"event: {e.get('type', 'message')}\ndata: {_data(e)}\n\n" for e in events).encode("utf-8")
