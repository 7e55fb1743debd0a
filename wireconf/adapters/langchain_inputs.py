"""The corpus's canonical agent and messages written as a LangChain user writes them: message objects
(``SystemMessage``, ``HumanMessage``, ``AIMessage`` with ``tool_calls``, ``ToolMessage`` with
``tool_call_id``) whose content is a string for a single text part and LangChain's standard content
blocks otherwise (``{"type": "image", "url" | "base64", "mime_type"}``, ``audio``, ``file``; an image
with a ``detail`` in the OpenAI form LangChain documents for it), and the chat model's constructor
arguments for the options. LangChain then does the rest: this module only writes the inputs."""

from __future__ import annotations

import json
from typing import Any

from wireconf.adapter_contract import Inexpressible
from wireconf.adapters.openai_inputs import FUNCTION_CALL_KEY, UnsupportedPart, data_url, is_url

OPTION_FIELDS = {
    "openai": {
        "temperature": "temperature",
        "maxOutputTokens": "max_tokens",
        "topP": "top_p",
        "frequencyPenalty": "frequency_penalty",
        "presencePenalty": "presence_penalty",
        "stopSequences": "stop",
        "seed": "seed",
    },
    "anthropic": {
        "temperature": "temperature",
        "maxOutputTokens": "max_tokens",
        "topP": "top_p",
        "topK": "top_k",
        "stopSequences": "stop_sequences",
    },
    "google": {
        "temperature": "temperature",
        "maxOutputTokens": "max_output_tokens",
        "topP": "top_p",
        "topK": "top_k",
        "stopSequences": "stop",
        "frequencyPenalty": "frequency_penalty",
        "presencePenalty": "presence_penalty",
        "seed": "seed",
    },
}
"""Each canonical option and the chat model's constructor field for it. An option the model has no field
for (``top_k`` for ChatOpenAI; penalties and ``seed`` for ChatAnthropic) is one its users cannot write,
so it is not passed; ``additionalProperties`` go to ``model_kwargs``, as LangChain documents."""


def constructor_options(family: str, agent: dict[str, Any]) -> dict[str, Any]:
    given = (agent.get("model") or {}).get("options") or {}
    fields = OPTION_FIELDS[family]
    out = {fields[k]: v for k, v in given.items() if k in fields and v is not None}
    extra = dict(given.get("additionalProperties") or {})
    if extra:
        out["model_kwargs"] = extra
    return out


def _source(part: dict[str, Any]) -> dict[str, Any]:
    """A part's data as a LangChain block's source. Base64 data without a media type has no form:
    ``langchain_core.messages.content``'s image, audio, file and video blocks document ``mime_type`` as
    "Required for base64 data", so a type made up here would judge the adapter's guess, not LangChain."""
    value = str(part.get("value", ""))
    mime = part.get("mediaType")
    if is_url(value):
        return {"url": value, "mime_type": mime} if mime else {"url": value}
    if not mime:
        raise Inexpressible(
            f"a base64 {part.get('kind')} part without a media type: LangChain's content blocks document"
            " mime_type as required for base64 data (langchain_core.messages.content)"
        )
    return {"base64": value, "mime_type": mime}


def content_block(part: dict[str, Any]) -> dict[str, Any]:
    kind = part.get("kind")
    if kind == "text":
        return {"type": "text", "text": part.get("value", "")}
    if kind == "image":
        if part.get("detail"):
            image = {"url": data_url(part), "detail": part["detail"]}
            return {"type": "image_url", "image_url": image}
        return {"type": "image", **_source(part)}
    if kind == "audio":
        return {"type": "audio", **_source(part)}
    if kind == "file":
        return {"type": "file", **_source(part)}
    if kind == "video":
        return {"type": "video", **_source(part)}
    raise UnsupportedPart(f"a part of kind {kind!r} has no LangChain content block")


def _content(parts: list[dict[str, Any]]) -> Any:
    if len(parts) == 1 and parts[0].get("kind") == "text":
        return parts[0].get("value", "")
    return [content_block(p) for p in parts]


def _tool_call(call: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-shaped (or ToolCall-shaped) call as LangChain writes it: a ``ToolCall`` dict with its
    arguments parsed, or, when they are not JSON, an ``InvalidToolCall`` dict that keeps them as the
    string they are: what LangChain's own conversion of an OpenAI-format call does (``langchain_openai``'s
    ``_convert_dict_to_message``: ``parse_tool_call`` fails, ``make_invalid_tool_call``), for
    ``AIMessage.invalid_tool_calls``. JSON that is no object is handed over parsed, as that
    conversion does, and LangChain's own types judge it."""
    function = call.get("function") or call
    arguments = function.get("arguments")
    identity = {"id": call.get("id"), "name": function.get("name")}
    if not isinstance(arguments, str) or not arguments:
        return {**identity, "args": arguments or {}, "type": "tool_call"}
    try:
        args = json.loads(arguments)
    except ValueError:
        return {**identity, "args": arguments, "error": None, "type": "invalid_tool_call"}
    return {**identity, "args": args, "type": "tool_call"}


def message(canonical: dict[str, Any]) -> Any:
    from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage

    role = canonical.get("role")
    metadata = canonical.get("metadata") or {}
    content = _content(canonical.get("content") or [])
    named = {"name": metadata["name"]} if metadata.get("name") else {}
    if role == "system":
        return SystemMessage(content=content, **named)
    if role == "user":
        return HumanMessage(content=content, **named)
    if role == "assistant":
        calls = [_tool_call(c) for c in metadata.get("tool_calls") or []]
        valid = [c for c in calls if c["type"] == "tool_call"]
        invalid = [c for c in calls if c["type"] == "invalid_tool_call"]
        item = metadata.get(FUNCTION_CALL_KEY)
        if isinstance(item, dict):  # as LangChain's own AIMessage from a Responses call holds it
            # (``langchain_openai``'s ``_construct_lc_result_from_responses_api`` keeps each function_call
            # output item as a content block; ``_construct_responses_api_input`` sends such blocks back)
            text = [{"type": "text", "text": content}] if isinstance(content, str) and content else []
            content = [dict(item), *(content if isinstance(content, list) else text)]
        return AIMessage(content=content, tool_calls=valid, invalid_tool_calls=invalid, **named)
    if role == "tool":
        if not isinstance(metadata.get("tool_call_id"), str):
            # ``langchain_core.messages.tool.ToolMessage.tool_call_id: str`` is required: a LangChain user
            # cannot write a tool result that names no call
            raise Inexpressible("a tool result without tool_call_id: LangChain's ToolMessage requires one")
        return ToolMessage(content=content, tool_call_id=metadata["tool_call_id"], **named)
    return ChatMessage(role=str(role), content=content)
