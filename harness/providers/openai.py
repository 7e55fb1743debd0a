"""OpenAI: Chat Completions, Embeddings, Images and the Responses API, through ``openai.OpenAI``."""

from __future__ import annotations

from typing import Any

from harness.providers.provider import (
    TOKEN_START,
    Api,
    KeyShape,
    Provider,
    Route,
    event_json,
    http_module_of,
    typed_sse,
)


def http_module() -> Any:
    import openai

    return http_module_of(openai.DefaultHttpxClient)


def client(transport: Any, uris: list[str] | None = None) -> Any:
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


def sdk_json(value: Any) -> Any:
    """openai (and anthropic) models serialise themselves under their API field names."""
    return value.to_dict(mode="json")


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


def chat_sse(events: list[Any]) -> bytes:
    """Chat Completions framing: ``data:`` lines, then ``data: [DONE]``."""
    return ("".join(f"data: {event_json(e)}\n\n" for e in events) + "data: [DONE]\n\n").encode("utf-8")


PROVIDER = Provider(
    name="openai",
    title="OpenAI",
    hosts=("api.openai.com",),
    apis=(
        Api(
            "openai.chat",
            chat,
            Route(r"/chat/completions$"),
            chat_sse,
            real_traffic="chat",
            api_types=(None, "chat"),
        ),
        Api(
            "openai.embeddings",
            embeddings,
            Route(r"/embeddings$"),
            real_traffic="embeddings",
            api_types=("embedding",),
        ),
        Api(
            "openai.images",
            images,
            Route(r"/images/generations$"),
            typed_sse,
            real_traffic="images",
            api_types=("image",),
        ),
        Api(
            "openai.responses",
            responses,
            Route(r"/responses$"),
            typed_sse,
            real_traffic="responses",
            api_types=("responses",),
        ),
    ),
    key_variables=("OPENAI_API_KEY",),
    secret_variables=("OPENAI_ADMIN_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"),
    base_url_variable="OPENAI_BASE_URL",
    distributions=("openai", "httpx2"),
    http_module=http_module,
    replay_client=client,
    record_client=record_client,
    key_shapes=(
        KeyShape("OpenAI API key (sk-…)", TOKEN_START + r"sk-(?!ant-)[A-Za-z0-9_-]{20,}"),
        KeyShape("OpenAI session key (sess-…)", TOKEN_START + r"sess-[A-Za-z0-9]{20,}"),
        KeyShape("OpenAI organisation id (org-…)", TOKEN_START + r"org-[A-Za-z0-9]{20,}"),
        KeyShape("OpenAI project id (proj_…)", TOKEN_START + r"proj_[A-Za-z0-9]{20,}"),
    ),
    identifier_prefixes=("org-", "proj_"),
    kept_headers=frozenset({"openai-beta"}),
    sdk_json=sdk_json,
)
