"""``--impl llamaindex``: LlamaIndex's LLM classes (llama-index-core with llama-index-llms-openai's
``OpenAI`` (Chat Completions) and ``OpenAIResponses``, llama-index-llms-anthropic's ``Anthropic`` and
llama-index-llms-google-genai's ``GoogleGenAI``). Not an extra of wireconf: LlamaIndex pins other
versions of the providers' SDKs than wireconf's, so it lives in an environment of its own (runtimes.yaml;
``python -m wireconf.envs llamaindex`` prints its Python), where it runs in process or is served::

    "$(python -m wireconf.envs llamaindex)" -m pytest cases --impl llamaindex
    .venv/bin/pytest cases --impl \
        "exec:$(python -m wireconf.envs llamaindex) -m wireconf.exec_protocol.serve llamaindex"

The runtime gets what its users write (``llamaindex_inputs``): ``ChatMessage`` s of content blocks,
the options as the class's constructor arguments, tools as ``FunctionTool`` s passed to
``chat_with_tools`` (``allow_parallel_tool_calls=True``, ``FunctionAgent``'s default), ``outputs`` through
``as_structured_llm(output_cls)``. The LLM class builds its official SDK client itself, pointed at the
case's endpoint (a site of the harness's emulator) as a user points LlamaIndex at a base URL (``api_base``,
``base_url``, Gemini's ``http_options``), for every kind:

- ``wire``: ``chat`` (``chat_with_tools``, the structured LLM's ``chat``); the request the SDK sends
  there is judged (the site answers a minimal valid response).
- ``process`` / ``stream``: ``chat`` / ``stream_chat`` on the recorded bytes the site serves, so the
  SDK's and LlamaIndex's own parsing build the ``ChatResponse`` s; the result is read as LlamaIndex
  users read it: ``response.message.content``, the ``ToolSelection`` s of
  ``llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)`` (their parsed
  ``tool_kwargs`` written back as JSON), the structured output's object (``response.raw``) as a dict;
  a stream's ``delta`` s and, once it ends, the tool calls of its last response (as ``FunctionAgent``
  reads them). ``process_async``: the same through ``achat``.
- ``e2e``: the ``wire`` call (``stream_chat`` when the agent asks for a stream); the case's recorded
  exchange answers each request there, in order.

``GoogleGenAI``'s constructor fetches the model's description (``client.models.get``, for its token
limits) unless given both ``max_tokens`` and ``context_window``: that GET is answered with a
description of the model (``_ModelDescribed``, as a download of the input's media is), not by the
endpoint; it never reaches the request.

LlamaIndex has no tool kinds other than functions, no bindings and no ``apiType`` dispatch (the class
is the provider): only ``concept:message-metadata`` (tool calls are ``ToolCallBlock`` s, a tool
result's call id is in ``additional_kwargs``) is declared.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from wireconf.adapter_contract import Endpoint, capability, concept, served_kinds
from wireconf.adapters import llamaindex_inputs, openai_inputs
from wireconf.adapters.http_answer import observing
from wireconf.adapters.own_clients import DEFAULT_MODEL, PLACEHOLDER_KEY, PROCESS_MESSAGES, without_stream
from wireconf.adapters.results import ToolCall, arguments_text, text_result
from wireconf.cassettes.downloads import Download, Downloads

MODELS: dict[str, tuple[str, str]] = {
    "openai.chat": ("llama_index.llms.openai", "OpenAI"),
    "openai.responses": ("llama_index.llms.openai", "OpenAIResponses"),
    "anthropic.messages": ("llama_index.llms.anthropic", "Anthropic"),
    "gemini.generate_content": ("llama_index.llms.google_genai", "GoogleGenAI"),
}
"""Per api: the module and the LLM class."""

HINT = "LlamaIndex is installed beside wireconf in its own environment: python -m wireconf.envs llamaindex"
DISTRIBUTIONS = (
    "llama-index-core",
    "llama-index-llms-openai",
    "llama-index-llms-anthropic",
    "llama-index-llms-google-genai",
)


def _versions() -> tuple[str, str | None]:
    found, missing = [], []
    for name in DISTRIBUTIONS:
        try:
            found.append(f"{name.removeprefix('llama-index-').removeprefix('llms-')} {_version(name)}")
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    why = f"{', '.join(missing)} not installed; {HINT}" if missing else None
    return ", ".join(found) or "not installed", why


def _version(name: str) -> str:
    return importlib.metadata.version(name)


class _ModelDescribed(Downloads):
    """The downloads of one call, and ``GoogleGenAI``'s GET of its model's description, answered with
    the fields it reads (its token limits); any other GET as ``Downloads`` answers it."""

    def fetch(self, method: str, url: str) -> Download:
        path = urlsplit(url).path
        if method.upper() == "GET" and "/models/" in path and ":" not in path.rsplit("/", 1)[-1]:
            name = path[path.index("/models/") + 1 :]
            body = {"name": name, "inputTokenLimit": 1048576, "outputTokenLimit": 65536}
            return Download(url, "application/json", json.dumps(body).encode())
        return super().fetch(method, url)


@dataclass(frozen=True)
class _Call:
    """What one call of the LLM gets: the messages as LlamaIndex objects, the downloads its input
    names (and the model's description), and the class's constructor arguments for the case's
    endpoint."""

    written: list[Any]
    downloads: Downloads
    endpoint: dict[str, Any]


class LlamaIndexAdapter:
    name = "llamaindex"

    def __init__(self, classes: dict[str, Any] | None = None) -> None:
        """``classes``: an LLM class per api to judge instead of LlamaIndex's (tests' fakes)."""
        if classes is None:
            self.version, self.unavailable = _versions()
            classes = {} if self.unavailable else {api: _load(api) for api in MODELS}
        else:
            self.version, self.unavailable = "test", None
        self._classes = classes

    def capabilities(self) -> set[str]:
        caps = {capability(kind, api) for kind in served_kinds(self) for api in self._classes}
        return caps | ({concept("message-metadata")} if caps else set())

    def _llm(self, api: str, agent: dict[str, Any], endpoint: dict[str, Any]) -> Any:
        arguments: dict[str, Any] = {
            "model": (agent.get("model") or {}).get("id") or DEFAULT_MODEL[api],
            "api_key": PLACEHOLDER_KEY,
            "max_retries": 0,
            **llamaindex_inputs.constructor_options(api, agent),
            **endpoint,
        }
        return self._classes[api](**arguments)

    def _prepared(
        self, api: str, agent: dict[str, Any], call: _Call, structured: bool
    ) -> tuple[Any, Any, dict[str, Any]]:
        """The object to call (the LLM, or its structured LLM), and the keyword arguments of the call
        besides the messages: the tools for ``chat_with_tools``, or none."""
        llm = self._llm(api, agent, call.endpoint)
        output_cls = llamaindex_inputs.output_class(agent) if structured else None
        if output_cls is not None:
            return llm, llm.as_structured_llm(output_cls), {}
        tools = llamaindex_inputs.tools(agent)
        if not tools:
            return llm, llm, {}
        options: dict[str, Any] = {"tools": tools, "allow_parallel_tool_calls": True}
        if api.startswith("openai.") and any(t.get("strict") for t in agent.get("tools") or []):
            options["strict"] = True
        return llm, llm, options

    def _result(self, llm: Any, response: Any, agent: dict[str, Any]) -> Any:
        """A ``ChatResponse`` as LlamaIndex users read it."""
        raw: Any = getattr(response, "raw", None)
        if _is_model(raw) and llamaindex_inputs.output_class(agent) is not None:
            return raw.model_dump()
        calls = llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)
        if calls:
            return [ToolCall(c.tool_id, c.tool_name, arguments_text(c.tool_kwargs)) for c in calls]
        return text_result(response.message.content, agent)

    def _send(self, api: str, agent: dict[str, Any], call: _Call) -> tuple[Any, Any]:
        """The LLM and its ``ChatResponse`` for ``call``."""
        llm, target, options = self._prepared(api, agent, call, structured=True)
        if options:
            return llm, target.chat_with_tools(chat_history=call.written, **options)
        return llm, target.chat(call.written)

    def _chat(self, api: str, agent: dict[str, Any], call: _Call) -> Any:
        with observing(call.downloads):
            llm, response = self._send(api, agent, call)
        return self._result(llm, response, agent)

    async def _achat(self, api: str, agent: dict[str, Any], call: _Call) -> Any:
        with observing(call.downloads):
            llm, target, options = self._prepared(api, agent, call, structured=True)
            if options:
                response = await target.achat_with_tools(chat_history=call.written, **options)
            else:
                response = await target.achat(call.written)
        return self._result(llm, response, agent)

    def _stream_calls(self, api: str, agent: dict[str, Any], call: _Call) -> Iterator[tuple[Any, Any]]:
        """The LLM and each ``ChatResponse`` of ``stream_chat`` (``stream_chat_with_tools``)."""
        llm, target, options = self._prepared(api, agent, call, structured=False)
        if options:
            responses = target.stream_chat_with_tools(chat_history=call.written, **options)
        else:
            responses = target.stream_chat(call.written)
        for response in responses:
            yield llm, response

    def _stream(self, api: str, agent: dict[str, Any], call: _Call) -> Iterator[Any]:
        """Each response's ``delta`` as it comes, the tool calls of the last response once it ends."""
        llm, last = None, None
        with observing(call.downloads):
            for called, response in self._stream_calls(api, agent, call):
                if response.delta:
                    yield response.delta
                llm, last = called, response
        calls = llm.get_tool_calls_from_response(last, error_on_no_tool_call=False) if llm else []
        for c in calls:
            yield ToolCall(c.tool_id, c.tool_name, arguments_text(c.tool_kwargs))

    def build_request(
        self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], *, endpoint: Endpoint
    ) -> None:
        """``chat`` (``stream_chat`` when the agent asks for a stream: a LlamaIndex user asks by calling
        it, not with a ``stream`` option) at the case's endpoint: the request the SDK sends there is
        judged (what it raises once that is sent is not: the site's answer is not the case's)."""
        written = [llamaindex_inputs.message(m) for m in openai_inputs.calls_answered(messages)]
        streamed, agent = without_stream(agent)
        call = _Call(written, _ModelDescribed(messages), pointed_at(api, endpoint))
        if streamed:
            for _ in self._stream(api, agent, call):
                pass
        else:
            self._chat(api, agent, call)

    def _process_call(self, api: str, endpoint: Endpoint) -> _Call:
        written = [llamaindex_inputs.message(m) for m in PROCESS_MESSAGES]
        return _Call(written, _ModelDescribed(), pointed_at(api, endpoint))

    def process(self, api: str, agent: dict[str, Any], response: object, *, endpoint: Endpoint) -> Any:
        return self._chat(api, agent, self._process_call(api, endpoint))

    async def process_async(
        self, api: str, agent: dict[str, Any], response: object, *, endpoint: Endpoint
    ) -> Any:
        return await self._achat(api, agent, self._process_call(api, endpoint))

    def process_stream(
        self, api: str, agent: dict[str, Any], events: Any, *, endpoint: Endpoint
    ) -> Iterator[Any]:
        return self._stream(api, agent, self._process_call(api, endpoint))

    def execute(
        self,
        api: str,
        agent: dict[str, Any],
        messages: list[dict[str, Any]],
        *,
        endpoint: Endpoint,
    ) -> Any:
        """``chat`` (``stream_chat`` when the agent asks for a stream) at the case's endpoint, where the
        case's recorded exchange answers each request."""
        written = [llamaindex_inputs.message(m) for m in openai_inputs.calls_answered(messages)]
        streamed, agent = without_stream(agent)
        call = _Call(written, _ModelDescribed(messages), pointed_at(api, endpoint))
        if streamed:
            return self._stream(api, agent, call)
        return self._chat(api, agent, call)


def _is_model(value: Any) -> bool:
    return callable(getattr(value, "model_dump", None)) and hasattr(type(value), "model_fields")


def pointed_at(api: str, endpoint: Endpoint) -> dict[str, Any]:
    """The class's constructor arguments for the case's ``endpoint``, as a user points LlamaIndex at a
    base URL: ``api_base`` (OpenAI's, up to its ``/v1``), ``base_url`` (Anthropic's origin: its SDK adds
    the version), ``http_options`` (Gemini: the origin and the api version)."""
    if api.startswith("openai."):
        return {"api_base": endpoint.api_base_url}
    if api == "anthropic.messages":
        return {"base_url": endpoint.origin}
    return {"http_options": {"base_url": endpoint.origin, "api_version": endpoint.api_version}}


def _load(api: str) -> Any:
    module, cls = MODELS[api]
    return getattr(importlib.import_module(module), cls)
