"""How LlamaIndex is called in a reproduction of a ``wire`` case: its LLM class for the api, built with
the adapter's constructor arguments, ``chat`` (``chat_with_tools``, a structured LLM's ``chat``, or
``stream_chat`` when the agent asks for a stream) with the adapter's ``ChatMessage`` s
(``wireconf.adapters.llamaindex_inputs``), as ``wireconf.adapters.llamaindex`` calls it.

LlamaIndex's objects are pydantic models without a serialisation of their own to load from: each is
written as the constructor call that makes it again (its class and the fields set), and a block whose
fields, given back to its class, do not make the same block (a validator that re-encodes what it was
given) is refused rather than written differently. A tool's parameters and an agent's ``outputs`` are
given as the adapter gives them: a pydantic class whose JSON Schema is the case's (pydantic's
``__get_pydantic_json_schema__`` hook), written into the script.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from wireconf.adapters import llamaindex_inputs, openai_inputs
from wireconf.adapters.llamaindex import DISTRIBUTIONS, MODELS
from wireconf.adapters.own_clients import DEFAULT_MODEL, PLACEHOLDER_KEY, PROCESS_MESSAGES, without_stream
from wireconf.core.errors import WireconfError
from wireconf.providers.registry import PROVIDER_OF
from wireconf.reference_impl.schema import schema_to_wire
from wireconf.repro.script import TEXT, Call, literal, pinned

ENDPOINTS = {
    "openai.chat": "api_base=base_url",
    "openai.responses": "api_base=base_url",
    "anthropic.messages": "base_url=base_url",
    "gemini.generate_content": 'http_options={"base_url": base_url, "api_version": "v1beta"}',
}
"""How a LlamaIndex user points each class at an endpoint (the adapter's ``_endpoint``)."""

DESCRIBED = """def describe(handler):  # GoogleGenAI's constructor reads the model's token limits (a GET)
    body = json.dumps({"name": "models/m", "inputTokenLimit": 1048576, "outputTokenLimit": 65536}).encode()
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)

"""
"""Gemini's class asks for its model's description when it is built, as the adapter answers it
(``_ModelDescribed``): never a request the verdict judges."""

SCHEMA_CLASS = '''def schema_class(name, schema):
    """A pydantic class whose JSON Schema is ``schema``, what LlamaIndex reads a tool's or an output's."""

    def json_schema(cls, core_schema, handler):
        return copy.deepcopy(schema)

    namespace = {
        "model_config": ConfigDict(extra="allow"),
        "__get_pydantic_json_schema__": classmethod(json_schema),
    }
    return type(name, (BaseModel,), namespace)


def not_run(**kwargs: Any) -> Any:
    raise RuntimeError("a tool given to build the request only")
'''


class UnwritableInput(WireconfError):
    """A LlamaIndex object of the case's input that its constructor would not make again as it is."""


def _constructed(value: Any) -> str:
    """A LlamaIndex block as the constructor call that makes it again; a plain value as a literal."""
    dump = getattr(value, "model_dump", None)
    if dump is None:
        return literal(value)
    fields = {  # a pydantic URL as the text it was given (the field takes it so)
        key: str(item) if type(item).__module__.startswith("pydantic") else item
        for key, item in dump(exclude_unset=True).items()
    }
    made = value.model_dump()
    if type(value)(**fields).model_dump() != made:
        raise UnwritableInput(f"a {type(value).__name__} of the input is not made again from its fields")
    for key in list(fields):  # a field the block's validators work out (a guessed media type): left to them
        rest = {k: v for k, v in fields.items() if k != key}
        with contextlib.suppress(Exception):
            if type(value)(**rest).model_dump() == made:
                fields = rest
    return f"{type(value).__name__}({', '.join(f'{k}={literal(v)}' for k, v in fields.items())})"


def _message(message: Any) -> str:
    blocks = "".join(f"\n            {_constructed(b)}," for b in message.blocks)
    role = getattr(message.role, "value", message.role)
    extra = literal(message.additional_kwargs)
    return (
        f"    ChatMessage(\n        role={role!r},\n        blocks=[{blocks}\n        ],\n"
        f"        additional_kwargs={extra},\n    ),"
    )


def _options(api: str, agent: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The constructor's options as data, and the line that turns Gemini's ``generation_config`` (a
    ``GenerateContentConfig``) back into the SDK's type."""
    options = llamaindex_inputs.constructor_options(api, agent)
    config = options.pop("generation_config", None)
    if config is None:
        return options, ""
    options["generation_config"] = config.model_dump(mode="json", exclude_none=True)
    return options, 'ARGUMENTS["generation_config"] = GenerateContentConfig(**ARGUMENTS["generation_config"])'


@dataclass(frozen=True)
class _Parts:
    """A LlamaIndex call's parts: the prelude, the lines that build the LLM and its target, and the call
    expression (``chat`` / ``stream_chat``, with tools ``..._with_tools``)."""

    prelude: str
    setup: list[str]
    call: str
    requirements: tuple[str, ...]


def _parts(api: str, agent: dict[str, Any], written: list[Any], streamed: bool, structured: bool) -> _Parts:
    """As ``LlamaIndexAdapter._prepared`` does: the LLM class with the adapter's arguments, pointed at the
    local server, and the call with the agent's output class (``structured``: not for a stream) or its
    tools."""
    module, cls = MODELS[api]
    classes = sorted(
        {"ChatMessage"} | {type(b).__name__ for m in written for b in m.blocks if hasattr(b, "model_dump")}
    )
    options, config_line = _options(api, agent)
    arguments = {
        "model": (agent.get("model") or {}).get("id") or DEFAULT_MODEL[api],
        "api_key": PLACEHOLDER_KEY,
        "max_retries": 0,
        **options,
    }
    imports = [
        f"from llama_index.core.base.llms.types import {', '.join(classes)}",
        f"from {module} import {cls}",
    ]
    data = [f"ARGUMENTS = {literal(arguments)}"]
    if config_line:
        imports.append("from google.genai.types import GenerateContentConfig")
        data.append(config_line)
    tools = agent.get("tools") or []
    outputs = agent.get("outputs") if structured else None
    body = []
    if api == "gemini.generate_content":
        body.append("Handler.do_GET = describe")
    body.append(f"llm = {cls}(**ARGUMENTS, {ENDPOINTS[api]})")
    helpers = DESCRIBED if api == "gemini.generate_content" else ""
    if outputs or tools:
        imports = [
            "import copy",
            "from typing import Any",
            "",
            *imports,
            "from pydantic import BaseModel, ConfigDict",
        ]
        helpers += SCHEMA_CLASS
    method = "stream_chat" if streamed else "chat"
    if outputs:
        data.append(f"OUTPUT = {literal(schema_to_wire(outputs))}")
        body.append('target, options = llm.as_structured_llm(schema_class("structured_output", OUTPUT)), {}')
    elif tools:
        imports.append("from llama_index.core.tools import FunctionTool")
        made = llamaindex_inputs.tools(agent)  # the description FunctionTool gave each (its own when none)
        specs = [
            {
                "name": str(t.get("name") or ""),
                "description": tool.metadata.description,
                "parameters": schema_to_wire(t.get("parameters")),
            }
            for t, tool in zip(tools, made, strict=True)
        ]
        data.append(f"TOOLS = {literal(specs)}")
        body += [
            "tools = [",
            "    FunctionTool.from_defaults(",
            '        fn=not_run, name=t["name"], description=t["description"],',
            '        fn_schema=schema_class(t["name"], t["parameters"]),',
            "    )",
            "    for t in TOOLS",
            "]",
        ]
        strict = api.startswith("openai.") and any(t.get("strict") for t in tools)
        body.append(
            "target, options = llm, {"
            + '"tools": tools, "allow_parallel_tool_calls": True'
            + (', "strict": True' if strict else "")
            + "}"
        )
        method += "_with_tools"
    else:
        body.append("target, options = llm, {}")
    data.append("MESSAGES = [\n" + "\n".join(_message(m) for m in written) + "\n]")
    if method.endswith("_with_tools"):
        call = f"target.{method}(chat_history=MESSAGES, **options)"
    else:
        call = f"target.{method}(MESSAGES, **options)"
    prelude = "\n".join(imports) + "\n\n" + "\n\n".join(data) + ("\n\n\n" + helpers if helpers else "")
    return _Parts(prelude, body, call, pinned(*DISTRIBUTIONS, *PROVIDER_OF[api].distributions[:1]))


def llamaindex(api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> Call:
    """A ``wire`` case's call (``LlamaIndexAdapter.build_request``): ``chat`` (the structured LLM's, or
    ``chat_with_tools``), or ``stream_chat`` read to its end when the agent asks for a stream."""
    streamed, agent = without_stream(agent)
    written = [llamaindex_inputs.message(m) for m in openai_inputs.calls_answered(messages)]
    parts = _parts(api, agent, written, streamed, structured=not streamed)
    body = [*parts.setup, f"for _ in {parts.call}:\n    pass" if streamed else parts.call]
    return Call(parts.requirements, parts.prelude, "\n".join(body))


READ = (
    TEXT
    + """


def calls(llm, response):
    \"\"\"The tool calls of a response as LlamaIndex users read them (``get_tool_calls_from_response``),
    their parsed ``tool_kwargs`` written back as JSON.\"\"\"
    found = llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)
    return [
        {
            "id": c.tool_id,
            "name": c.tool_name,
            "arguments": c.tool_kwargs
            if isinstance(c.tool_kwargs, str) or c.tool_kwargs is None
            else json.dumps(c.tool_kwargs, ensure_ascii=False),
        }
        for c in found
    ]"""
)
"""``LlamaIndexAdapter._result``'s reading (``wireconf.adapters.results``' ``text_result`` and
``arguments_text``), as the script's own functions."""


def llamaindex_result(api: str, agent: dict[str, Any], stream: bool, asynchronous: bool = False) -> Call:
    """A ``process`` / ``stream`` case's call, read as ``LlamaIndexAdapter`` reads it: the structured
    output's object, else the tool calls, else the text; a stream's ``delta`` s as they come, then the
    tool calls of its last response. ``asynchronous``: ``achat`` (``process_async``'s call)."""
    written = [llamaindex_inputs.message(m) for m in PROCESS_MESSAGES]
    parts = _parts(api, agent, written, stream, structured=not stream)
    prelude = parts.prelude + f"\n\nOUTPUTS = {bool(agent.get('outputs'))}" + READ
    call = parts.call
    if asynchronous and not stream:  # target.chat(...) -> asyncio.run(target.achat(...))
        prelude = "import asyncio\n" + prelude
        call = "asyncio.run(" + call.replace("target.", "target.a", 1) + ")"
    if not stream:
        read = [
            f"response = {call}",
            "raw = getattr(response, 'raw', None)",
            "if OUTPUTS and hasattr(raw, 'model_dump') and hasattr(type(raw), 'model_fields'):",
            "    return raw.model_dump()",
            "return calls(llm, response) or text(response.message.content)",
        ]
    else:
        read = [
            "last = None",
            f"for response in {parts.call}:",
            "    if response.delta:",
            "        yield response.delta",
            "    last = response",
            "yield from calls(llm, last) if last is not None else []",
        ]
    return Call(parts.requirements, prelude, "\n".join([*parts.setup, *read]))
