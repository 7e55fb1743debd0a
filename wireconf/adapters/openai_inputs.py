"""The corpus's canonical agent and messages written as the OpenAI Chat Completions input a user of an
OpenAI-format runtime writes (LiteLLM's ``completion(model, messages, tools, response_format, ...)``).

This is input mapping only, the way the runtime's documentation tells its users to write each thing:
text and image parts as Chat content parts, audio as ``input_audio`` with the format the media type
names, a tool as an OpenAI function whose ``parameters`` are the tool's JSON Schema, ``outputs`` as a
``json_schema`` response format, and a message's ``metadata`` (``tool_calls``, ``tool_call_id``,
``name``) as the message fields it stands for; an earlier Responses function call kept on the tool
message that answers it (``responses_function_call``) as the assistant turn that made it
(``calls_answered``, shared with the LangChain and LlamaIndex adapters). The runtime then turns this into
each provider's wire.
"""

from __future__ import annotations

from typing import Any

from wireconf.adapter_contract import Inexpressible
from wireconf.reference_impl.schema import schema_to_wire, strict_output_schema

OPTION_ARGUMENTS = {
    "temperature": "temperature",
    "maxOutputTokens": "max_completion_tokens",
    "topP": "top_p",
    "topK": "top_k",
    "frequencyPenalty": "frequency_penalty",
    "presencePenalty": "presence_penalty",
    "stopSequences": "stop",
    "seed": "seed",
}
"""The canonical options and the keyword argument an OpenAI-format caller passes for each."""


AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}
"""``input_audio.format`` as OpenAI documents its values; another media type gives its subtype."""


class UnsupportedPart(Inexpressible):
    """A part kind the OpenAI Chat format has no content part for: an input this runtime's users could
    not write, so the case is unsupported by the runtime, no verdict on it."""


def is_url(value: str) -> bool:
    return value.startswith(("http://", "https://", "data:"))


def data_url(part: dict[str, Any]) -> str:
    """A part's data as the OpenAI format takes it: its URL, or base64 data as a data URL, which names
    the media type. Base64 data without one has no form there (``data:;base64,`` is text/plain by RFC
    2397); a type made up here would judge the adapter's guess, not the runtime."""
    value = str(part.get("value", ""))
    if is_url(value):
        return value
    if not part.get("mediaType"):
        raise UnsupportedPart(
            f"a base64 {part.get('kind')} part without a media type: the OpenAI format takes base64 data"
            " only as a data URL, which names its media type"
        )
    return f"data:{part['mediaType']};base64,{value}"


def content_part(part: dict[str, Any]) -> dict[str, Any]:
    kind = part.get("kind")
    if kind == "text":
        return {"type": "text", "text": part.get("value", "")}
    if kind == "image":
        image: dict[str, Any] = {"url": data_url(part)}
        if part.get("detail"):
            image["detail"] = part["detail"]
        return {"type": "image_url", "image_url": image}
    if kind == "audio":
        media = part.get("mediaType")
        if not media:
            raise UnsupportedPart("an audio part without a media type: input_audio needs its format")
        audio_format = AUDIO_FORMATS.get(str(media), str(media).split("/")[-1])
        return {"type": "input_audio", "input_audio": {"data": part.get("value"), "format": audio_format}}
    if kind == "file":
        return {"type": "file", "file": {"file_data": data_url(part)}}
    raise UnsupportedPart(f"a part of kind {kind!r} has no OpenAI Chat content part")


def message(canonical: dict[str, Any]) -> dict[str, Any]:
    metadata = canonical.get("metadata") or {}
    if canonical.get("role") == "tool" and not isinstance(metadata.get("tool_call_id"), str):
        # the OpenAI Chat format requires it (openapi.yaml's ChatCompletionRequestToolMessage: required
        # role, content, tool_call_id): a result that names no call cannot be written in it
        raise Inexpressible("a tool result without tool_call_id: an OpenAI-format tool message requires one")
    parts = canonical.get("content") or []
    if len(parts) == 1 and parts[0].get("kind") == "text":
        content: Any = parts[0].get("value", "")
    else:
        content = [content_part(p) for p in parts]
    out: dict[str, Any] = {"role": canonical.get("role"), "content": content}
    for key, value in (canonical.get("metadata") or {}).items():
        if key == "tool_calls" and isinstance(value, list):
            out[key] = [tool_call(call) for call in value]
        elif key in ("tool_calls", "tool_call_id", "name"):
            out[key] = value
    return out


FUNCTION_CALL_KEY = "responses_function_call"
"""A tool message's metadata key for the Responses API ``function_call`` item it answers (§7.4.1)."""


def calls_answered(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with each earlier function call a tool message carries (``metadata``'s
    ``responses_function_call``: §7.4.1 keeps the call on the message that answers it) written as the users
    of a chat runtime write that turn: an assistant message with the call as its tool call, right before
    the tool message, unless an assistant message already carries a call of that id. The runtime then
    sends the call as its own conversion of an assistant's tool call does. The item is kept in that turn's
    metadata too (``FUNCTION_CALL_KEY``), for a runtime whose assistant turn holds a Responses item as it
    came (LangChain's AIMessage content); the others have no place for it."""
    written: list[dict[str, Any]] = []
    carried = {
        call.get("id")
        for m in messages
        if m.get("role") == "assistant"
        for call in (m.get("metadata") or {}).get("tool_calls") or []
        if isinstance(call, dict)
    }
    for m in messages:
        item = (m.get("metadata") or {}).get(FUNCTION_CALL_KEY)
        if isinstance(item, dict) and item.get("call_id") not in carried:
            call = {
                "id": item.get("call_id"),
                "name": item.get("name"),
                "arguments": item.get("arguments", ""),
            }
            # the item itself beside the call, for a runtime whose assistant turn can hold it as it came
            metadata = {"tool_calls": [call], FUNCTION_CALL_KEY: item}
            written.append({"role": "assistant", "content": [], "metadata": metadata})
        written.append(m)
    return written


def tool_call(call: Any) -> Any:
    """A stored tool call as an OpenAI-format caller writes one: OpenAI-shaped as it is, a §8.7
    ToolCall (``{id, name, arguments}``, as a processor returns it) in the OpenAI shape it stands for."""
    if not isinstance(call, dict) or "function" in call or "name" not in call:
        return call
    function = {"name": call["name"], "arguments": call.get("arguments", "")}
    return {"id": call.get("id"), "type": "function", "function": function}


def json_schema(properties: list[dict[str, Any]] | None, strict: bool = False) -> dict[str, Any]:
    """The JSON Schema a user of these runtimes writes for the spec's properties (§7.1.4's table); a
    property kind outside the table has no JSON Schema type, so its users cannot write it at all:
    ``Inexpressible`` (the case is unsupported by the runtime, never passed on the adapter's refusal)."""
    try:
        return strict_output_schema(properties or []) if strict else schema_to_wire(properties)
    except ValueError as exc:
        raise Inexpressible(f"{exc}: its users write a JSON Schema, which has no type for that kind") from exc


def tool(canonical: dict[str, Any]) -> dict[str, Any]:
    function: dict[str, Any] = {"name": canonical.get("name")}
    if canonical.get("description") is not None:
        function["description"] = canonical["description"]
    function["parameters"] = json_schema(canonical.get("parameters"))
    if canonical.get("strict"):
        function["strict"] = True
    return {"type": "function", "function": function}


def options(agent: dict[str, Any]) -> dict[str, Any]:
    """The options as keyword arguments; ``additionalProperties`` passed as they are."""
    given = (agent.get("model") or {}).get("options") or {}
    out = {OPTION_ARGUMENTS[k]: v for k, v in given.items() if k in OPTION_ARGUMENTS and v is not None}
    for key, value in (given.get("additionalProperties") or {}).items():
        out.setdefault(key, value)
    return out


def response_format(agent: dict[str, Any]) -> dict[str, Any] | None:
    outputs = agent.get("outputs")
    if not outputs:
        return None
    schema = json_schema(outputs, strict=True)
    return {
        "type": "json_schema",
        "json_schema": {"name": "structured_output", "strict": True, "schema": schema},
    }


def function_tools(agent: dict[str, Any]) -> list[dict[str, Any]]:
    """The agent's tools; only ``function`` tools can be written (the adapters declare no tool kinds)."""
    return [tool(t) for t in agent.get("tools") or []]
