"""Anthropic: the Messages API through ``anthropic.Anthropic``."""

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
    api_names_json,
    http_module_of,
    typed_sse,
)
from wireconf.untyped import JSON, SDKObject

if TYPE_CHECKING:
    import anthropic


def http_module() -> ModuleType:
    import anthropic

    return http_module_of(anthropic.DefaultHttpxClient)


def client(transport: Any, uris: list[str] | None = None) -> anthropic.Anthropic:
    """A real ``anthropic.Anthropic`` whose HTTP goes to ``transport``."""
    import anthropic

    return anthropic.Anthropic(
        api_key="wireconf-replay",
        base_url="https://api.anthropic.com",
        http_client=http_module().Client(transport=transport),
        max_retries=0,
    )


def record_client(transport: Any) -> anthropic.Anthropic:
    """The client a user with real keys gets: ``ANTHROPIC_API_KEY`` and ``ANTHROPIC_BASE_URL`` read by
    the SDK, HTTP through ``transport``."""
    import anthropic

    return anthropic.Anthropic(http_client=http_module().Client(transport=transport), max_retries=0)


def messages(sdk: anthropic.Anthropic, headers: dict[str, str], stream: bool) -> SDKObject:
    """``anthropic.types.Message``, or ``anthropic.Stream[RawMessageStreamEvent]``."""
    return sdk.messages.create(
        model="wireconf-replay", max_tokens=1, messages=[], stream=stream, extra_headers=headers
    )


_SDK = "anthropic (2.14) "

MESSAGES_EQUIVALENCES = (
    Equivalence(
        "stream-default",
        "$.stream",
        "default",
        _SDK + "anthropic.types.message_create_params.MessageCreateParamsNonStreaming.stream",
        "stream: Literal[False]: the non-streaming request type's only stream value, the request the "
        "SDK sends without stream",
        value=False,
    ),
    Equivalence(
        "content-one-text-block",
        "$.messages[*].content",
        "one-text-block",
        _SDK + "anthropic.types.message_create_params.MessageCreateParamsBase.messages",
        'Using a `string` for `content` is shorthand for an array of one content block of type `"text"`.',
    ),
    Equivalence(
        "system-one-text-block",
        "$.system",
        "one-text-block",
        _SDK + "anthropic.types.message_create_params.MessageCreateParamsBase.system",
        "system: Union[str, Iterable[TextBlockParam]]: the system prompt as a string or as text blocks "
        "(the messages' shorthand rule, a string for one text block)",
    ),
    Equivalence(
        "tool-result-content-one-text-block",
        "$.messages[*].content[*].content",
        "one-text-block",
        _SDK + "anthropic.types.ToolResultBlockParam.content",
        "content: Union[str, Iterable[Content]]: a tool result's content as a string or as blocks (the "
        "messages' shorthand rule, a string for one text block)",
    ),
    Equivalence(
        "tool-choice-default-with-tools",
        "$.tool_choice",
        "default",
        "https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use",
        "auto allows Claude to decide whether to call any provided tools or not. This is the default "
        "value when tools are provided.",
        value={"type": "auto"},
        when=("agent.tools[*]",),
    ),
)
"""The Messages API: requests it reads alike (``wireconf.providers.equivalence``)."""


def request_type(body: JSON) -> str:
    """``MessageCreateParamsStreaming`` for ``"stream": true``, else ``…NonStreaming``."""
    variant = "Streaming" if body.get("stream") is True else "NonStreaming"
    return f"anthropic.types.message_create_params.MessageCreateParams{variant}"


PROVIDER = Provider(
    name="anthropic",
    title="Anthropic",
    hosts=("api.anthropic.com",),
    apis=(
        Api(
            "anthropic.messages",
            messages,
            Route(r"/messages$"),
            typed_sse,
            real_traffic="anthropic",
            api_types=(None, "chat"),
            equivalences=MESSAGES_EQUIVALENCES,
            sdk_models=("anthropic.types",),
            request_type=request_type,
        ),
    ),
    key_variables=("ANTHROPIC_API_KEY",),
    secret_variables=("ANTHROPIC_AUTH_TOKEN",),
    base_url_variable="ANTHROPIC_BASE_URL",
    version_path="/v1",  # the Messages API's only version; the Python SDK adds it to each path
    distributions=("anthropic", "httpx2"),
    http_module=http_module,
    replay_client=client,
    record_client=record_client,
    key_shapes=(KeyShape("Anthropic API key (sk-ant-…)", TOKEN_START + r"sk-ant-[A-Za-z0-9_-]{16,}"),),
    kept_headers=frozenset({"anthropic-version", "anthropic-beta"}),
    sdk_json=api_names_json,
    tracing_scopes=frozenset({"com.anthropic.sdk.python"}),
)
