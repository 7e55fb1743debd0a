"""OpenAI: Chat Completions, Embeddings, Images and the Responses API, through ``openai.OpenAI``."""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

from wireconf.providers.equivalence import Equivalence
from wireconf.providers.provider import (
    TOKEN_START,
    Api,
    KeyShape,
    Provider,
    Route,
    event_json,
    http_module_of,
    typed_sse,
)
from wireconf.untyped import JSON, SDKObject

if TYPE_CHECKING:
    import openai


def http_module() -> ModuleType:
    import openai

    return http_module_of(openai.DefaultHttpxClient)


def client(transport: Any, uris: list[str] | None = None) -> openai.OpenAI:
    """A real ``openai.OpenAI`` whose HTTP goes to ``transport`` (a MockTransport or any transport)."""
    import openai

    return openai.OpenAI(
        api_key="wireconf-replay",
        base_url="https://api.openai.com/v1",
        http_client=http_module().Client(transport=transport),
        max_retries=0,
    )


def record_client(transport: Any) -> openai.OpenAI:
    """The client a user with real keys gets: key, organisation, project and base URL from the
    environment (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, …, read by the SDK), HTTP through ``transport``."""
    import openai

    return openai.OpenAI(http_client=http_module().Client(transport=transport), max_retries=0)


def sdk_json(value: SDKObject) -> JSON:
    """openai (and anthropic) models serialise themselves under their API field names. An object of a
    type the SDK does not know (an event or delta the provider added later) is kept as the SDK parsed
    it and written as it is; pydantic's warning that it fits no member of its union is not the
    harness's to raise (under ``-W error`` it would end the case)."""
    return value.to_dict(mode="json", warnings=False)


def chat(sdk: openai.OpenAI, headers: dict[str, str], stream: bool) -> SDKObject:
    """``ChatCompletion``, or ``openai.Stream[ChatCompletionChunk]``."""
    return sdk.chat.completions.create(
        model="wireconf-replay", messages=[], stream=stream, extra_headers=headers
    )


def embeddings(sdk: openai.OpenAI, headers: dict[str, str], stream: bool) -> SDKObject:
    """``CreateEmbeddingResponse`` as recorded (float vectors).

    ``encoding_format="float"`` because without it the SDK asks for base64 and its post-parser raises
    its own error on an empty ``data`` before any processor sees it, so §8.2's empty check could never
    be exercised; with it the SDK hands over the parsed body unchanged, as the recordings were made.
    """
    return sdk.embeddings.create(
        model="wireconf-replay", input="x", encoding_format="float", extra_headers=headers
    )


def images(sdk: openai.OpenAI, headers: dict[str, str], stream: bool) -> SDKObject:
    """``ImagesResponse``, or ``openai.Stream[ImageGenStreamEvent]`` (partial and completed images)."""
    return sdk.images.generate(model="wireconf-replay", prompt="x", stream=stream, extra_headers=headers)


def responses(sdk: openai.OpenAI, headers: dict[str, str], stream: bool) -> SDKObject:
    """``Response``, or ``openai.Stream[ResponseStreamEvent]``."""
    return sdk.responses.create(model="wireconf-replay", input="x", stream=stream, extra_headers=headers)


_CHAT_REFERENCE = "https://platform.openai.com/docs/api-reference/chat/create"
_SDK = "openai (3.57) "

CHAT_EQUIVALENCES = (
    Equivalence(
        "stream-default",
        "$.stream",
        "default",
        _CHAT_REFERENCE + " (request body: stream)",
        "stream: boolean or null, Optional, Defaults to false",
        value=False,
    ),
    Equivalence(
        "n-default",
        "$.n",
        "default",
        _CHAT_REFERENCE + " (request body: n)",
        "n: integer or null, Optional, Defaults to 1",
        value=1,
    ),
    Equivalence(
        "tool-choice-default-with-tools",
        "$.tool_choice",
        "default",
        _SDK + "openai.types.chat.completion_create_params.CompletionCreateParamsBase.tool_choice",
        "`none` is the default when no tools are present. `auto` is the default if tools are present.",
        value="auto",
        when=("agent.tools[*]",),
    ),
    Equivalence(
        "parallel-tool-calls-default",
        "$.parallel_tool_calls",
        "default",
        _CHAT_REFERENCE + " (request body: parallel_tool_calls)",
        "parallel_tool_calls: boolean, Optional, Defaults to true",
        value=True,
    ),
    Equivalence(
        "content-one-text-part",
        "$.messages[*].content",
        "one-text-block",
        _SDK + "openai.types.chat.ChatCompletionUserMessageParam.content / "
        "ChatCompletionSystemMessageParam.content (and the developer and assistant message params)",
        "content: Required[Union[str, Iterable[ChatCompletionContentPartTextParam]]]: the text contents "
        "of the message, as a string or as text content parts",
    ),
    Equivalence(
        "tool-call-arguments-json",
        "$.messages[*].tool_calls[*].function.arguments",
        "same-json",
        _SDK + "openai.types.chat.chat_completion_message_function_tool_call_param.Function.arguments",
        "The arguments to call the function with, as generated by the model in JSON format.",
    ),
)
"""Chat Completions: requests the API reads alike (``wireconf.providers.equivalence``)."""

RESPONSES_EQUIVALENCES = (
    Equivalence(
        "stream-default",
        "$.stream",
        "default",
        "https://platform.openai.com/docs/api-reference/responses/create (request body: stream)",
        "stream: boolean or null, Optional, Defaults to false",
        value=False,
    ),
    Equivalence(
        "input-message-type-default",
        "$.input[*].type",
        "default",
        _SDK + "openai.types.responses.EasyInputMessageParam.type",
        'type: Literal["message"]: The type of the message input. Always `message`. (an optional key of '
        "EasyInputMessageParam, whose content and role are Required)",
        value="message",
    ),
)

EMBEDDINGS_EQUIVALENCES = (
    Equivalence(
        "encoding-format-default",
        "$.encoding_format",
        "default",
        "https://platform.openai.com/docs/api-reference/embeddings/create (request body: encoding_format)",
        "encoding_format: string, Optional, Defaults to float",
        value="float",
    ),
)

IMAGES_EQUIVALENCES = (
    Equivalence(
        "n-default",
        "$.n",
        "default",
        "https://platform.openai.com/docs/api-reference/images/create (request body: n)",
        "n: integer or null, Optional, Defaults to 1",
        value=1,
    ),
    Equivalence(
        "stream-default",
        "$.stream",
        "default",
        "https://platform.openai.com/docs/api-reference/images/create (request body: stream)",
        "stream: boolean or null, Optional, Defaults to false",
        value=False,
    ),
)


def chat_request_type(body: JSON) -> str:
    """``CompletionCreateParamsStreaming`` for ``"stream": true``, else ``…NonStreaming``."""
    variant = "Streaming" if body.get("stream") is True else "NonStreaming"
    return f"openai.types.chat.completion_create_params.CompletionCreateParams{variant}"


def responses_request_type(body: JSON) -> str:
    variant = "Streaming" if body.get("stream") is True else "NonStreaming"
    return f"openai.types.responses.response_create_params.ResponseCreateParams{variant}"


def images_request_type(body: JSON) -> str:
    variant = "Streaming" if body.get("stream") is True else "NonStreaming"
    return f"openai.types.image_generate_params.ImageGenerateParams{variant}"


def embeddings_request_type(body: JSON) -> str:
    return "openai.types.embedding_create_params.EmbeddingCreateParams"


def chat_sse(events: list[JSON]) -> bytes:
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
            equivalences=CHAT_EQUIVALENCES,
            sdk_models=("openai.types.chat",),
            request_type=chat_request_type,
        ),
        Api(
            "openai.embeddings",
            embeddings,
            Route(r"/embeddings$"),
            real_traffic="embeddings",
            api_types=("embedding",),
            equivalences=EMBEDDINGS_EQUIVALENCES,
            sdk_models=("openai.types.create_embedding_response",),
            request_type=embeddings_request_type,
        ),
        Api(
            "openai.images",
            images,
            Route(r"/images/generations$"),
            typed_sse,
            real_traffic="images",
            api_types=("image",),
            equivalences=IMAGES_EQUIVALENCES,
            sdk_models=("openai.types.images_response", "openai.types.image_gen_stream_event"),
            request_type=images_request_type,
        ),
        Api(
            "openai.responses",
            responses,
            Route(r"/responses$"),
            typed_sse,
            real_traffic="responses",
            api_types=("responses",),
            equivalences=RESPONSES_EQUIVALENCES,
            sdk_models=("openai.types.responses",),
            request_type=responses_request_type,
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
