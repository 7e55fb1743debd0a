"""How each runtime is called, and its result read, in a reproduction of a ``process`` or ``stream`` case:
the adapter's call pointed at the script's local server (which answers with the recorded response), the
result read as the adapter reads it, which is how the runtime's users read it (``wireconf.adapters.litellm``,
``langchain``, ``prompty_adapter``): the tool calls as id, name and arguments, else the text, with
``outputs`` the JSON it holds; a stream's text items as they come, its tool calls once it ends.

A template takes the api, the case's agent and whether it is a stream, and gives a ``script.Call`` whose
body is that of ``call(base_url)``: it returns the result (a stream's is a generator). The request's
input is the one the adapters send for a response case (``own_clients.PROCESS_MESSAGES``): a response
case judges the response, not the request.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from wireconf.adapters import langchain_inputs, openai_inputs
from wireconf.adapters.langchain import MODELS as LANGCHAIN_MODELS
from wireconf.adapters.langchain import SDK_API_VERSION, model_arguments
from wireconf.adapters.litellm import completion_arguments
from wireconf.adapters.own_clients import PLACEHOLDER_KEY, PROCESS_MESSAGES
from wireconf.adapters.prompty_adapter import API_PROVIDER as PROMPTY_PROVIDER
from wireconf.adapters.prompty_adapter.inputs import agent_data, message_data
from wireconf.repro.llamaindex_template import llamaindex_result
from wireconf.repro.script import TEXT, Call, literal, pinned
from wireconf.repro.templates import _sdk, langchain_binding

ResultTemplate = Callable[[str, dict[str, Any], bool], Call]

API_BASE = {"openai.chat": "/v1", "openai.responses": "/v1", "gemini.generate_content": "/v1beta"}
"""What follows the origin in the base URL the runtime is given, per api (``Endpoint.api_base_url``'s
form; Anthropic's SDKs take the origin)."""

TEXT_INPUT_APIS = ("openai.embeddings", "openai.images")
"""Apis whose request input is text, not messages."""


def _outputs(agent: dict[str, Any]) -> str:
    return f"\n\nOUTPUTS = {bool(agent.get('outputs'))}"


def litellm(api: str, agent: dict[str, Any], stream: bool) -> Call:
    """``litellm.completion(**arguments, api_base=...)`` (``stream=True`` for a stream); the
    ``ModelResponse``'s tool calls else its text; a stream's ``delta.content`` s, then the tool calls of
    ``litellm.stream_chunk_builder(chunks)``."""
    arguments = completion_arguments(api, agent, [openai_inputs.message(m) for m in PROCESS_MESSAGES])
    prelude = (
        f"import litellm\n\nlitellm.suppress_debug_info = True\n\nARGUMENTS = {literal(arguments)}"
        + _outputs(agent)
        + TEXT
    )
    base = f'api_base=base_url + "{API_BASE.get(api, "")}"'
    calls = '[{"id": c.id, "name": c.function.name, "arguments": c.function.arguments} for c in %s]'
    if not stream:
        body = [
            f"result = litellm.completion(**ARGUMENTS, {base})",
            "if not result.choices:  # no choice to read: the response as LiteLLM returned it",
            "    return result",
            "message = result.choices[0].message",
            "if message.tool_calls:",
            "    return " + calls % "message.tool_calls",
            "return text(message.content)",
        ]
    else:
        body = [
            "chunks = []",
            f"for chunk in litellm.completion(**ARGUMENTS, {base}, stream=True):",
            "    chunks.append(chunk)",
            "    delta = chunk.choices[0].delta if chunk.choices else None",
            '    if getattr(delta, "content", None):',
            "        yield delta.content",
            "built = litellm.stream_chunk_builder(chunks) if chunks else None",
            "message = built.choices[0].message if built is not None and built.choices else None",
            "tool_calls = message.tool_calls if message is not None else None",
            "yield from " + calls % "tool_calls or []",
        ]
    return Call(pinned("litellm", _sdk(api)), prelude, "\n".join(body))


def langchain(api: str, agent: dict[str, Any], stream: bool) -> Call:
    """The chat model pointed at the server (``base_url``, Gemini's SDK api version), its tools bound or
    (``invoke`` only, as the adapter) its structured output; ``invoke``'s ``tool_calls`` (arguments
    written back as LangChain writes them, ``json.dumps``) else its ``text``; ``stream``'s chunk texts,
    then the tool calls of the chunks added up."""
    from langchain_core.load import dumpd

    module, cls, distribution, _ = LANGCHAIN_MODELS[api]
    arguments = model_arguments(api, agent)
    if api in SDK_API_VERSION:
        arguments["api_version"] = SDK_API_VERSION[api]
    written = json.loads(json.dumps(dumpd([langchain_inputs.message(m) for m in PROCESS_MESSAGES])))
    suffix = "/v1" if api.startswith("openai.") else ""
    structured = bool(agent.get("outputs")) and not stream
    extra, bound = langchain_binding(agent, structured=structured)
    lines = [f'model = {cls}(**ARGUMENTS, base_url=base_url + "{suffix}")', *bound]
    calls = (
        '[{"id": c["id"], "name": c["name"], "arguments": c["args"] if isinstance(c["args"], str) '
        'else json.dumps(c["args"], ensure_ascii=False)} for c in %s]'
    )
    if not stream:
        lines.append("result = model.invoke(load(MESSAGES, allowed_objects='messages'))")
        if structured:
            lines.append("return result")
        else:
            lines += ["if result.tool_calls:", "    return " + calls % "result.tool_calls"]
            lines.append("return text(str(result.text))")
    else:
        lines += [
            "whole = None",
            "for chunk in model.stream(load(MESSAGES, allowed_objects='messages')):",
            "    if str(chunk.text):",
            "        yield str(chunk.text)",
            "    whole = chunk if whole is None else whole + chunk",
            "yield from " + calls % 'getattr(whole, "tool_calls", None) or []',
        ]
    prelude = (
        f"import warnings\n\nfrom langchain_core.load import load\nfrom {module} import {cls}\n\n"
        'warnings.filterwarnings("ignore", message="The function `load` is in beta")\n\n'
        f"ARGUMENTS = {literal(arguments)}{extra}\n\nMESSAGES = {literal(written)}" + _outputs(agent) + TEXT
    )
    return Call(pinned("langchain-core", distribution, _sdk(api)), prelude, "\n".join(lines))


def prompty(api: str, agent: dict[str, Any], stream: bool) -> Call:
    """``prompty.run``'s two steps: the provider's executor (a ``key`` connection at the server; a
    stream asked for as prompty's users ask, ``additionalProperties.stream``), then its processor on
    what the executor returned; a stream's items are those of the generator the processor returns."""
    data = agent_data(agent)
    provider = (data.get("model") or {}).get("provider")
    provider = PROMPTY_PROVIDER[api] if provider in (None, "", "*") else provider
    if stream:
        model = dict(data["model"])
        options = dict(model.get("options") or {})
        options["additionalProperties"] = {**(options.get("additionalProperties") or {}), "stream": True}
        data = {**data, "model": {**model, "options": options}}
    # an embedding's or an image's input is text (prompty's executor passes it as input / prompt)
    data_argument = '"Hi"' if api in TEXT_INPUT_APIS else "[Message.load(m) for m in MESSAGES]"
    prelude = (
        "from collections.abc import Iterator\n\nfrom prompty import Agent, Message\n"
        "from prompty.core.discovery import get_executor, get_processor\n\n"
        f"AGENT = {literal(data)}\n\nMESSAGES = {literal([message_data(m) for m in PROCESS_MESSAGES])}"
    )
    body = [
        f'connection = {{"kind": "key", "endpoint": base_url, "apiKey": "{PLACEHOLDER_KEY}"}}',
        'agent = Agent.load({**AGENT, "model": {**AGENT["model"], "connection": connection}})',
        f'response = get_executor("{provider}").execute(agent, {data_argument})',
        f'result = get_processor("{provider}").process(agent, response)',
    ]
    if stream:
        body.append("yield from result if isinstance(result, Iterator) else [result]")
    else:
        body.append("return result")
    return Call(pinned("prompty", _sdk(api)), prelude, "\n".join(body))


def prompty_mapping(api: str, agent: dict[str, Any], stream: bool) -> Call:
    """prompty's processor handed the recorded body as a plain mapping (``response_as: mapping``: the
    decoded JSON, as a user who holds it calls ``process``); nothing is sent."""
    call = prompty(api, agent, stream)
    lines = [
        'response = json.loads(ANSWER["body"])  # the body, as a plain mapping'
        if line.startswith("response = get_executor(")
        else line
        for line in call.body.splitlines()
    ]
    return Call(call.requirements, call.prelude, "\n".join(lines))


def llamaindex_async(api: str, agent: dict[str, Any], stream: bool) -> Call:
    """LlamaIndex's ``achat`` (the adapter's ``process_async``), run by ``asyncio.run``."""
    return llamaindex_result(api, agent, stream, asynchronous=True)


ASYNC_TEMPLATES: dict[str, ResultTemplate] = {"llamaindex": llamaindex_async}
"""The runtimes whose asynchronous processor (a ``process`` case's ``process_async`` variant) a
reproduction calls, where only that variant differs."""

MAPPING_TEMPLATES: dict[str, ResultTemplate] = {"prompty": prompty_mapping}
"""The runtimes a reproduction hands a response as a plain mapping (their processor is handed the form,
``READS_HTTP``'s complement): the processor called on the decoded body."""


RESULT_TEMPLATES: dict[str, ResultTemplate] = {
    "litellm": litellm,
    "langchain": langchain,
    "prompty": prompty,
    "llamaindex": llamaindex_result,
}
"""The runtimes whose result a reproduction reads, by the adapter's name."""

READS_HTTP = frozenset({"litellm", "langchain", "ai-sdk", "llamaindex"})
"""The runtimes that read a response from HTTP whatever form the case hands its processor in
(``response_as: mapping`` too): their adapters call the endpoint; prompty's processors (Python and
TypeScript) are handed the form."""
