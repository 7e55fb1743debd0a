"""How each runtime is called in a reproduction: one template per adapter, fed by the adapter's own input
conversion (the case's agent and messages written as the runtime's users write them), so the script makes
the call the harness made, its client pointed by base URL at the script's local server.

A template takes the api, the case's agent and messages (as the wire kind hands them to the adapter) and
gives a ``script.Call``: the pinned packages, the module-level data (plain literals, or LangChain's own
serialisation of its message objects) and the body of ``call(base_url)``. Only the runtime and its SDKs
are imported by the script, never wireconf.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from wireconf.adapters import langchain_inputs, openai_inputs
from wireconf.adapters.langchain import MODELS as LANGCHAIN_MODELS
from wireconf.adapters.langchain import SDK_API_VERSION, model_arguments
from wireconf.adapters.litellm import completion_arguments
from wireconf.adapters.own_clients import PLACEHOLDER_KEY, without_stream
from wireconf.adapters.prompty_adapter import API_PROVIDER as PROMPTY_PROVIDER
from wireconf.adapters.prompty_adapter.inputs import agent_data, message_data
from wireconf.providers.registry import APIS, PROVIDER_OF
from wireconf.repro.llamaindex_template import llamaindex
from wireconf.repro.script import Call, literal, pinned

Template = Callable[[str, dict[str, Any], list[dict[str, Any]]], Call]


def _sdk(api: str) -> str:
    """The distribution of the api's provider SDK (the first its provider record names), which the
    runtime calls and may not depend on (prompty's are extras)."""
    return PROVIDER_OF[api].distributions[0]


def litellm(api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> Call:
    """``litellm.completion(**arguments, api_base=base_url)``: the adapter's arguments
    (``wireconf.adapters.litellm``), the OpenAI-format input LiteLLM's users write."""
    written = [openai_inputs.message(m) for m in openai_inputs.calls_answered(messages)]
    arguments = completion_arguments(api, agent, written)
    prelude = f"import litellm\n\nlitellm.suppress_debug_info = True\n\nARGUMENTS = {literal(arguments)}"
    body = "result = litellm.completion(**ARGUMENTS, api_base=base_url)"
    if arguments.get("stream") is True:  # a stream sends when it is first read, as the adapter reads it
        body += "\nlist(result)"
    return Call(pinned("litellm", _sdk(api)), prelude, body)


def litellm_e2e(api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> Call:
    """As ``LiteLLMAdapter.execute`` points it (``_pointed``): for Chat Completions an OpenAI client at
    the server in place of ``api_base``, which leaves LiteLLM's own ``api_base`` OpenAI's (it asks for a
    stream's usage only there), so the request is the one it sends OpenAI."""
    call = litellm(api, agent, messages)
    if api != "openai.chat":
        return call
    client = f'openai.OpenAI(api_key="{PLACEHOLDER_KEY}", base_url=base_url, max_retries=0)'
    body = call.body.replace("api_base=base_url", f"client={client}")
    return Call(call.requirements, "import openai\n" + call.prelude, body)


def langchain(api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> Call:
    """The chat model (``ChatOpenAI`` / ``ChatAnthropic`` / ``ChatGoogleGenerativeAI``) with the agent's
    options, tools bound (or its structured output), ``invoke``d with the adapter's message objects
    (``wireconf.adapters.langchain_inputs``), kept as LangChain's own serialisation (``dumpd``)."""
    return _langchain(api, agent, messages, streamed=False)


def langchain_e2e(api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> Call:
    """As ``LangChainAdapter.execute`` calls it: ``invoke``, or, when the agent asks for a stream,
    ``stream`` (without the option; tools bound, no structured output) read to its end."""
    streamed, agent = without_stream(agent)
    return _langchain(api, agent, messages, streamed=streamed, e2e=True)


def langchain_binding(agent: dict[str, Any], *, structured: bool) -> tuple[str, list[str]]:
    """What binds the agent's outputs (``with_structured_output``, when ``structured``) or else its
    tools (``bind_tools``, strict when any tool is) to the script's ``model``, as ``LangChainAdapter``
    binds them: the script's data for it and its lines."""
    if structured:
        schema = {"title": "structured_output", **openai_inputs.json_schema(agent["outputs"])}
        return f"\n\nSCHEMA = {literal(schema)}", ["model = model.with_structured_output(SCHEMA)"]
    tools = openai_inputs.function_tools(agent)
    if not tools:
        return "", []
    strict = any(t["function"].get("strict") for t in tools)
    bind = "model = model.bind_tools(TOOLS, strict=True)" if strict else "model = model.bind_tools(TOOLS)"
    return f"\n\nTOOLS = {literal(tools)}", [bind]


def _langchain(
    api: str, agent: dict[str, Any], messages: list[dict[str, Any]], *, streamed: bool, e2e: bool = False
) -> Call:
    from langchain_core.load import dumpd

    module, cls, distribution, _ = LANGCHAIN_MODELS[api]
    arguments = model_arguments(api, agent)
    if api in SDK_API_VERSION:
        arguments["api_version"] = SDK_API_VERSION[api]
    if e2e and api.startswith("openai."):  # ``pointed_at``: the default it has at OpenAI's own base URL
        arguments["stream_usage"] = True
    messages = openai_inputs.calls_answered(messages)
    written = json.loads(json.dumps(dumpd([langchain_inputs.message(m) for m in messages])))
    extra, bound = langchain_binding(agent, structured=bool(agent.get("outputs")) and not streamed)
    lines = [f"model = {cls}(**ARGUMENTS, base_url=base_url)", *bound]
    classes = sorted({str(m["id"][-1]) for m in written})  # ChatMessage (a developer's) is not 'messages'
    loaded = f"load(MESSAGES, allowed_objects=[{', '.join(classes)}])"
    lines.append(f"for _ in model.stream({loaded}):\n    pass" if streamed else f"model.invoke({loaded})")
    prelude = (
        f"import warnings\n\nfrom langchain_core.load import load\n"
        f"from langchain_core.messages import {', '.join(classes)}\nfrom {module} import {cls}\n\n"
        'warnings.filterwarnings("ignore", message="The function `load` is in beta")\n\n'
        f"ARGUMENTS = {literal(arguments)}{extra}\n\nMESSAGES = {literal(written)}"
    )
    return Call(pinned("langchain-core", distribution, _sdk(api)), prelude, "\n".join(lines))


def prompty(api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> Call:
    """prompty's executor for the agent's provider, ``execute(agent, messages)``, with the agent and
    messages loaded by prompty's own loaders (``wireconf.adapters.prompty_adapter.inputs``) and a ``key``
    connection whose endpoint is the local server (what prompty's users write in a .prompty file)."""
    data = agent_data(agent)
    provider = (data.get("model") or {}).get("provider")
    provider = PROMPTY_PROVIDER[api] if provider in (None, "", "*") else provider
    prelude = (
        "from prompty import Agent, Message\nfrom prompty.core.discovery import get_executor\n\n"
        f"AGENT = {literal(data)}\n\nMESSAGES = {literal([message_data(m) for m in messages])}"
    )
    body = "\n".join(
        [
            f'connection = {{"kind": "key", "endpoint": base_url, "apiKey": "{PLACEHOLDER_KEY}"}}',
            'agent = Agent.load({**AGENT, "model": {**AGENT["model"], "connection": connection}})',
            f'return get_executor("{provider}").execute(agent, [Message.load(m) for m in MESSAGES])',
        ]
    )
    return Call(pinned("prompty", _sdk(api)), prelude, body)


TEMPLATES: dict[str, Template] = {
    "litellm": litellm,
    "langchain": langchain,
    "prompty": prompty,
    "llamaindex": llamaindex,
}
"""The runtimes a reproduction can call, by the adapter's name."""

E2E_TEMPLATES: dict[str, Template] = {**TEMPLATES, "litellm": litellm_e2e, "langchain": langchain_e2e}
"""How each runtime is called for an ``e2e`` case (its adapter's ``execute``): as for a ``wire`` case
(the stream option read as LiteLLM, prompty and LlamaIndex read it there too), pointed at the server as
the adapter points it at the case's endpoint (``litellm_e2e``), LangChain's ``stream`` when the agent
asks for one (``langchain_e2e``)."""

ALIASED_APIS = tuple(name for name, api in APIS.items() if api.request_body is not None)
"""Apis whose bodies may spell a field by its proto name, which the provider reads alike (the harness
reads every body of them under one spelling: the api record's ``request_body``)."""
