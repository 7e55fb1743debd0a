"""Anthropic: the Messages API through ``anthropic.Anthropic``."""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Any

from wireconf.core.untyped import JSON, SDKObject
from wireconf.providers.contract import derived_equivalences
from wireconf.providers.equivalence import Equivalence
from wireconf.providers.provider import (
    PLACEHOLDER_KEY,
    TOKEN_START,
    Api,
    Credential,
    KeyShape,
    Provider,
    Route,
    api_names_json,
    http_module_of,
    typed_sse,
)

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
    """The client a runtime gets in record mode: ``ANTHROPIC_BASE_URL`` read by the SDK, the placeholder
    key (``transport`` adds the real credentials where it forwards), HTTP through ``transport``."""
    import anthropic

    return anthropic.Anthropic(
        api_key=PLACEHOLDER_KEY, http_client=http_module().Client(transport=transport), max_retries=0
    )


def messages(sdk: anthropic.Anthropic, headers: dict[str, str], stream: bool) -> SDKObject:
    """``anthropic.types.Message``, or ``anthropic.Stream[RawMessageStreamEvent]``."""
    return sdk.messages.create(
        model="wireconf-replay", max_tokens=1, messages=[], stream=stream, extra_headers=headers
    )


_REFERENCE = "https://docs.claude.com/en/api/messages"
_CONTRACT = "anthropic==0.125.0 (the pinned contract, contracts/anthropic.json) "

MESSAGES_EQUIVALENCES = (
    *derived_equivalences("anthropic", "anthropic.messages"),
    Equivalence(
        "stream-default",
        "$.stream",
        "default",
        _CONTRACT + "MessageCreateParamsNonStreaming.stream",
        "stream: Literal[False]: the non-streaming request type's only stream value, the request the "
        "SDK sends without stream",
        value=False,
    ),
    Equivalence(
        "temperature-default",
        "$.temperature",
        "default",
        _REFERENCE + " (body parameters: temperature)",
        "Amount of randomness injected into the response. Defaults to 1.0. Ranges from 0.0 to 1.0.",
        value=1.0,
    ),
    Equivalence(
        "content-one-text-block",
        "$.messages[*].content",
        "one-text-block",
        _REFERENCE + " (body parameters: messages)",
        "Each input message content may be either a single `string` or an array of content blocks [...] "
        'Using a `string` for `content` is shorthand for an array of one content block of type `"text"`.',
    ),
    Equivalence(
        "system-one-text-block",
        "$.system",
        "one-text-block",
        _REFERENCE + " (body parameters: system)",
        "system: string or array of TextBlockParam: the system prompt as a string or as text blocks (the "
        "messages' shorthand rule, a string for one text block)",
        concept="content-one-text-block",
    ),
    Equivalence(
        "tool-result-content-one-text-block",
        "$.messages[*].content[*].content",
        "one-text-block",
        _REFERENCE + " (ToolResultBlockParam.content)",
        "content: string or array of content blocks: a tool result's content as a string or as blocks "
        "(the messages' shorthand rule, a string for one text block)",
        concept="content-one-text-block",
    ),
    Equivalence(
        "tool-result-is-error-default",
        "$.messages[*].content[*].is_error",
        "default",
        "https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use"
        "#handling-tool-use-and-tool-result-content-blocks",
        "is_error (optional): Set to true if the tool execution resulted in an error.",
        value=False,
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
    Equivalence(
        "tool-choice-disable-parallel-tool-use-default",
        "$.tool_choice.disable_parallel_tool_use",
        "default",
        _REFERENCE + " (ToolChoiceAuto.disable_parallel_tool_use)",
        "Whether to disable parallel tool use. Defaults to `false`. If set to `true`, the model will "
        "output at most one tool use.",
        value=False,
    ),
)
"""The Messages API: requests it reads alike (``wireconf.providers.equivalence``): the ``null`` its
pinned contract admits (``derived_equivalences``; the SDK types state no defaults), then what its API
reference says."""


def request_type(body: JSON) -> str:
    """The contract's request schema for ``body``: ``…Streaming`` for ``"stream": true``, else
    ``…NonStreaming`` (``wireconf.providers.contract``)."""
    variant = "Streaming" if body.get("stream") is True else "NonStreaming"
    return f"MessageCreateParams{variant}"


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
            equivalence_gaps={
                "null": "not a proto3 JSON parser: null stands for unset only where the contract lets "
                "the field be null (derived field by field: the `-null` equivalences)",
                "proto3-json-spelling": "the contract names each field once (snake_case)",
                "top-p-default": 'the API reference gives top_p no default ("Use nucleus sampling. [...] '
                'You should either alter temperature or top_p, but not both.")',
                "service-tier-default": "neither the pinned contract nor the API reference found here "
                "states which service tier an omitted service_tier means",
                "tools-default": "the contract states no default for `tools`: an empty array is not "
                "documented to be read as omitted",
            },
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
    # https://docs.anthropic.com/en/api/getting-started#authentication: "All requests to the Anthropic
    # API must include an x-api-key header with your API key"; the SDK sends an ANTHROPIC_AUTH_TOKEN as
    # a bearer token instead
    credentials=(
        Credential(("ANTHROPIC_API_KEY",), "x-api-key"),
        Credential(("ANTHROPIC_AUTH_TOKEN",), "Authorization", "Bearer "),
    ),
    auth_headers=frozenset({"x-api-key", "authorization"}),
)
