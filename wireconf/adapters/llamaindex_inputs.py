"""The corpus's canonical agent and messages written as a LlamaIndex user writes them: ``ChatMessage``
objects whose ``blocks`` are LlamaIndex's content blocks (``TextBlock``, ``ImageBlock``, ``AudioBlock``,
``VideoBlock``, ``DocumentBlock``; an assistant's tool calls as ``ToolCallBlock`` s, a tool result's
call id in ``additional_kwargs["tool_call_id"]``, as ``FunctionAgent`` writes its memory), tools as
``FunctionTool`` s, ``outputs`` as the output class of ``as_structured_llm``, and the options as the
LLM class's constructor arguments. LlamaIndex then does the rest: this module only writes the inputs.

A tool's parameters and an agent's ``outputs`` are JSON Schemas, where LlamaIndex takes a pydantic
class (``ToolMetadata.fn_schema``, ``output_cls``) and reads its JSON Schema: the class written here
gives the case's schema as its own (``schema_class``), so every step after it (LlamaIndex's filtering
of the schema's keys, each provider's conversion, the parsing of the answer into the class) is
LlamaIndex's own.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import copy
import importlib
import json
import re
from typing import Any

from wireconf.adapters.openai_inputs import AUDIO_FORMATS, is_url

OPTION_FIELDS: dict[str, dict[str, str]] = {
    "openai.chat": {"temperature": "temperature", "maxOutputTokens": "max_tokens"},
    "openai.responses": {
        "temperature": "temperature",
        "topP": "top_p",
        "maxOutputTokens": "max_output_tokens",
    },
    "anthropic.messages": {"temperature": "temperature", "maxOutputTokens": "max_tokens"},
    "gemini.generate_content": {"temperature": "temperature", "maxOutputTokens": "max_tokens"},
}
"""Each canonical option the LLM class has a constructor field for, per api."""

EXTRA_OPTIONS: dict[str, dict[str, str]] = {
    "openai.chat": {
        "topP": "top_p",
        "frequencyPenalty": "frequency_penalty",
        "presencePenalty": "presence_penalty",
        "stopSequences": "stop",
        "seed": "seed",
    },
    "openai.responses": {},
    "anthropic.messages": {"topP": "top_p", "topK": "top_k", "stopSequences": "stop_sequences"},
    "gemini.generate_content": {
        "topP": "top_p",
        "topK": "top_k",
        "stopSequences": "stop_sequences",
        "frequencyPenalty": "frequency_penalty",
        "presencePenalty": "presence_penalty",
        "seed": "seed",
    },
}
"""The options the class has no field for, under the request parameter its users pass in the class's
``additional_kwargs`` ("Additional kwargs for the OpenAI / anthropic API"), or for Gemini, whose class
has none, in its ``generation_config`` (a ``GenerateContentConfig``). An option in neither table
(``top_k`` for OpenAI) is one its users cannot send: it is not passed."""


def constructor_options(api: str, agent: dict[str, Any]) -> dict[str, Any]:
    """The LLM class's constructor arguments for the agent's options: its own fields, then the rest
    (``additionalProperties`` as they are) in ``additional_kwargs``; for Gemini, when anything beyond
    the class's fields is asked for, every option in one ``generation_config`` (which then replaces
    the class's ``temperature`` and ``max_tokens``, as ``GoogleGenAI.__init__`` reads it), written as
    one config: ``additionalProperties`` under the SDK type's names or aliases, the mapped options over
    them (a user writes one value per field, and the spec's mapped option is the one meant)."""
    given = (agent.get("model") or {}).get("options") or {}
    fields, extra_names = OPTION_FIELDS[api], EXTRA_OPTIONS[api]
    out = {fields[k]: v for k, v in given.items() if k in fields and v is not None}
    mapped_extra = {extra_names[k]: v for k, v in given.items() if k in extra_names and v is not None}
    additional = dict(given.get("additionalProperties") or {})
    if not mapped_extra and not additional:
        return out
    if api != "gemini.generate_content":
        return {**out, "additional_kwargs": {**mapped_extra, **additional}}
    from google.genai import types

    mapped = {"max_output_tokens" if k == "max_tokens" else k: v for k, v in out.items()}
    config = types.GenerateContentConfig.model_validate(additional)
    return {"generation_config": config.model_copy(update={**mapped_extra, **mapped})}


def _llama(module: str) -> Any:
    """A module of LlamaIndex, imported when the adapter first writes an input: LlamaIndex lives in an
    environment of its own (conformance/runtimes.yaml), not the one the project is type-checked in."""
    return importlib.import_module(module)


def _decoded(value: str) -> bytes | None:
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def _source(part: dict[str, Any], data_field: str) -> dict[str, Any]:
    """Where a media part's bytes are: ``url`` for a URL (a ``data:`` URL too, which LlamaIndex reads
    inline), else the decoded bytes (what a user who has the file passes), else the text as given."""
    value = str(part.get("value", ""))
    if is_url(value):
        return {"url": value}
    raw = _decoded(value)
    return {data_field: raw if raw is not None else value.encode()}


def block(part: dict[str, Any]) -> Any:
    types = _llama("llama_index.core.base.llms.types")

    kind = part.get("kind")
    media = part.get("mediaType")
    if kind == "text":
        return types.TextBlock(text=str(part.get("value", "")))
    if kind == "image":
        image = _source(part, "image")
        return types.ImageBlock(**image, image_mimetype=media, detail=part.get("detail"))
    if kind == "audio":
        # the format named as for every OpenAI-format runtime (``openai_inputs.AUDIO_FORMATS``: ``wav``,
        # ``mp3``, else the media type's subtype), not by this machine's table of file extensions
        media_type = str(media) if media else ""
        audio_format = AUDIO_FORMATS.get(media_type, media_type.split("/")[-1]) or None
        return types.AudioBlock(**_source(part, "audio"), format=audio_format)
    if kind == "video":
        return types.VideoBlock(**_source(part, "video"), video_mimetype=media)
    if kind == "file":
        return types.DocumentBlock(**_source(part, "data"), document_mimetype=media)
    # a kind LlamaIndex has no block for, written as an unknown block: its type system decides
    return {"block_type": kind, **{k: v for k, v in part.items() if k != "kind"}}


def _tool_call(call: dict[str, Any]) -> Any:
    """An OpenAI-shaped (or ToolCall-shaped) call as a ``ToolCallBlock``, its arguments a dict as a
    user writes ``tool_kwargs`` (``ToolSelection.tool_kwargs``); a string that is not JSON as it is."""
    ToolCallBlock = _llama("llama_index.core.base.llms.types").ToolCallBlock

    function = call.get("function") or call
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        with contextlib.suppress(ValueError):
            arguments = json.loads(arguments) if arguments else {}
    return ToolCallBlock(
        tool_call_id=call.get("id"),
        tool_name=str(function.get("name") or ""),
        tool_kwargs=arguments if arguments is not None else {},
    )


ROLES = {"system", "developer", "user", "assistant", "tool"}


def message(canonical: dict[str, Any]) -> Any:
    ChatMessage = _llama("llama_index.core.base.llms.types").ChatMessage

    metadata = canonical.get("metadata") or {}
    blocks: list[Any] = [block(p) for p in canonical.get("content") or []]
    role = canonical.get("role")
    additional: dict[str, Any] = {}
    if role == "assistant":
        blocks += [_tool_call(c) for c in metadata.get("tool_calls") or []]
    if metadata.get("tool_call_id") is not None:
        additional["tool_call_id"] = metadata["tool_call_id"]
    if metadata.get("name"):
        additional["name"] = metadata["name"]
    # a role LlamaIndex's MessageRole has no member for is refused by its type, as a user's would be
    return ChatMessage(role=role, blocks=blocks, additional_kwargs=additional)


def _class_name(name: str) -> str:
    return re.sub(r"\W", "_", name) or "Schema"


def schema_class(name: str, schema: dict[str, Any]) -> Any:
    """A pydantic class whose JSON Schema is ``schema``: what LlamaIndex and the SDKs read from a tool's
    ``fn_schema`` and a structured LLM's ``output_cls`` (``model_json_schema()``, or
    ``TypeAdapter(cls).json_schema()``), through pydantic's documented hook for a class's JSON Schema
    (``__get_pydantic_json_schema__``). It keeps every field of the JSON it is validated from
    (``extra="allow"``), so ``model_dump()`` is what LlamaIndex parsed."""
    from pydantic import BaseModel, ConfigDict

    def json_schema(cls: Any, core_schema: Any, handler: Any) -> dict[str, Any]:
        return copy.deepcopy(schema)

    namespace = {
        "model_config": ConfigDict(extra="allow"),
        "__get_pydantic_json_schema__": classmethod(json_schema),
    }
    return type(_class_name(name), (BaseModel,), namespace)


def _not_run(**kwargs: Any) -> Any:
    from wireconf.adapter_contract import ToolCalled

    raise ToolCalled("LlamaIndex ran a tool given for request building only")


def function_tool(canonical: dict[str, Any]) -> Any:
    """A ``FunctionTool`` as ``FunctionTool.from_defaults(fn, name, description, fn_schema)`` builds it."""
    FunctionTool = _llama("llama_index.core.tools").FunctionTool

    from wireconf.reference_impl.schema import schema_to_wire

    name = str(canonical.get("name") or "")
    parameters = schema_to_wire(canonical.get("parameters"))
    description = canonical.get("description")
    return FunctionTool.from_defaults(
        fn=_not_run,
        name=name,
        description=description if description is not None else None,
        fn_schema=schema_class(name, parameters),
    )


def tools(agent: dict[str, Any]) -> list[Any]:
    return [function_tool(t) for t in agent.get("tools") or []]


def output_class(agent: dict[str, Any]) -> Any:
    """The ``output_cls`` for the agent's ``outputs`` (None without them), named as the spec's
    ``response_format`` names its schema."""
    from wireconf.reference_impl.schema import schema_to_wire

    outputs = agent.get("outputs")
    if not outputs:
        return None
    return schema_class("structured_output", schema_to_wire(outputs))
