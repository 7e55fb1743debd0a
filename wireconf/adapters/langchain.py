"""``--impl langchain``: LangChain's chat models (``pip install 'wireconf[langchain]'``): langchain-openai's
``ChatOpenAI`` (Chat Completions, and the Responses API with ``use_responses_api=True``),
langchain-anthropic's ``ChatAnthropic`` and langchain-google-genai's ``ChatGoogleGenerativeAI``.

The runtime gets what its users write (``langchain_inputs``): message objects, the options as the chat
model's constructor arguments, tools through ``bind_tools`` (OpenAI function dicts, which LangChain
converts per provider), ``outputs`` through ``with_structured_output(<JSON Schema>)`` with each model's
default method. The chat model builds its official SDK client itself, pointed at the case's endpoint
(``base_url``, the placeholder key: a site of the harness's emulator) for every kind:

- ``wire``: ``invoke(messages)``; the request the SDK sends there is judged (the site answers with a
  minimal valid response of the api).
- ``process`` / ``stream``: the site serves the recorded bytes; ``invoke`` / ``stream`` over its
  real HTTP path, so the SDK's and LangChain's own parsing build the ``AIMessage`` /
  ``AIMessageChunk`` s from the bytes as recorded; the result is read as LangChain users read it:
  ``message.text``, ``message.tool_calls`` (arguments LangChain parsed, written back as compact JSON),
  the structured output's dict; a stream's ``chunk.text`` and, once it ends, the tool calls of the
  chunks added up (``chunk + chunk``).

LangChain has no tool kinds other than functions, no bindings and no ``apiType`` dispatch (the class is
the provider): only ``concept:message-metadata`` (tool calls and tool call ids are message fields) is
declared.

- ``e2e``: ``invoke`` (``stream`` when the agent asks for a stream) on the chat model pointed at the
  case's endpoint, as in ``process``: the case's recorded exchange answers every request its SDK client
  sends there, in order, and judges the requests sent and the result (an ``incremental`` case's stream
  held back by the emulator's gate until the chat model yields).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from unittest import mock

from wireconf.adapter_contract import Endpoint, capability, concept, served_kinds
from wireconf.adapters import langchain_inputs, openai_inputs
from wireconf.adapters.http_answer import requests_answered
from wireconf.adapters.own_clients import DEFAULT_MODEL, PLACEHOLDER_KEY, PROCESS_MESSAGES, without_stream
from wireconf.adapters.results import ToolCall, arguments_text, text_result
from wireconf.cassettes.downloads import Downloads

MODELS: dict[str, tuple[str, str, str, str]] = {
    "openai.chat": ("langchain_openai", "ChatOpenAI", "langchain-openai", "openai"),
    "openai.responses": ("langchain_openai", "ChatOpenAI", "langchain-openai", "openai"),
    "anthropic.messages": ("langchain_anthropic", "ChatAnthropic", "langchain-anthropic", "anthropic"),
    "gemini.generate_content": (
        "langchain_google_genai",
        "ChatGoogleGenerativeAI",
        "langchain-google-genai",
        "google",
    ),
}
"""Per api: the module, the chat model class, its distribution and its option family."""

SEED = "wireconf"
"""The seed of the ids langchain-google-genai draws for calls Gemini sent without one (``uuid.uuid4()``
in ``langchain_google_genai.chat_models``): seeded anew for every call, so a case's diff is the same on
every run (the findings page rebuilds byte for byte)."""


class _SeededUuid:
    """``uuid`` as ``langchain_google_genai.chat_models`` sees it: ``uuid4()`` from a seeded generator."""

    def __init__(self) -> None:
        self._random = random.Random(SEED)

    def uuid4(self) -> uuid.UUID:
        return uuid.UUID(int=self._random.getrandbits(128), version=4)

    def __getattr__(self, name: str) -> Any:
        return getattr(uuid, name)


@contextlib.contextmanager
def _served(downloads: Downloads) -> Iterator[None]:
    """A call of the chat model: Gemini's missing call ids seeded; a media URL of the input the chat
    model downloads (``ImageBytesLoader``, through ``requests``, not its SDK client) answered from
    ``downloads``."""
    with contextlib.ExitStack() as stack:
        try:
            module: Any = importlib.import_module("langchain_google_genai.chat_models")
        except ImportError:  # a fake's run: nothing to seed
            module = None
        if getattr(module, "uuid", None) is uuid:
            stack.enter_context(mock.patch.object(module, "uuid", _SeededUuid()))
        if downloads.named:
            stack.enter_context(requests_answered(downloads))
        yield


@dataclass(frozen=True)
class _Call:
    """What one call of the chat model gets: the messages as LangChain objects, the media downloads its
    input names, and the chat model's constructor arguments for the case's endpoint."""

    written: list[Any]
    downloads: Downloads
    endpoint: dict[str, Any]


HINT = "pip install 'wireconf[langchain]'"
DISTRIBUTIONS = ("langchain-core", "langchain-openai", "langchain-anthropic", "langchain-google-genai")


def _versions() -> tuple[str, str | None]:
    found, missing = [], []
    for name in DISTRIBUTIONS:
        try:
            found.append(f"{name.removeprefix('langchain-')} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
    why = f"{', '.join(missing)} not installed; {HINT}" if missing else None
    return ", ".join(found) or "not installed", why


class LangChainAdapter:
    name = "langchain"
    endpoint_seated = True
    """One base URL for the process's life (``wireconf.kinds.sites``): each chat model caches its httpx
    client per ``base_url`` (``_get_default_httpx_client``), as it does with one provider."""
    adapter_modules = (
        "wireconf.adapters.langchain",
        "wireconf.adapters.langchain_inputs",
        "wireconf.adapters.openai_inputs",
        "wireconf.adapters.http_answer",
        "wireconf.adapters.results",
    )
    """This adapter's own code (``wireconf.core.raise_site``): an exception it raises is its bug, no
    verdict."""
    runtime_packages: tuple[str, ...] = (
        "langchain",
        "langchain_core",
        "langchain_openai",
        "langchain_anthropic",
        "langchain_google_genai",
    )
    """LangChain's packages; the SDKs, httpx and pydantic under them raise for whoever called them."""

    def __init__(self, classes: dict[str, Any] | None = None) -> None:
        """``classes``: a chat model class per api to judge instead of LangChain's (tests' fakes)."""
        if classes is None:
            self.version, self.unavailable = _versions()
            classes = {} if self.unavailable else {api: _load(api) for api in MODELS}
        else:
            self.version, self.unavailable = "test", None
            self.runtime_packages += tuple({cls.__module__ for cls in classes.values()})
        self._classes = classes

    def capabilities(self) -> set[str]:
        caps = {capability(kind, api) for kind in served_kinds(self) for api in self._classes}
        return caps | ({concept("message-metadata")} if caps else set())

    def _runnable(
        self, api: str, agent: dict[str, Any], structured: bool, endpoint: dict[str, Any]
    ) -> tuple[Any, bool]:
        """The chat model with the agent's tools bound, or its structured-output runnable."""
        model = self._classes[api](**model_arguments(api, agent), **endpoint)
        if structured and agent.get("outputs"):
            schema = {"title": "structured_output", **openai_inputs.json_schema(agent["outputs"])}
            return model.with_structured_output(schema), True
        tools = openai_inputs.function_tools(agent)
        if tools:
            strict = any(t["function"].get("strict") for t in tools)
            model = model.bind_tools(tools, strict=True) if strict else model.bind_tools(tools)
        return model, False

    def build_request(
        self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], *, endpoint: Endpoint
    ) -> None:
        """``invoke``: the request it sends the case's endpoint is judged (what it raises once that is
        sent is not: the site's answer is not the case's)."""
        written = [langchain_inputs.message(m) for m in openai_inputs.calls_answered(messages)]
        self._invoke(api, agent, _Call(written, Downloads(messages), pointed_at(api, endpoint)))

    def _invoke(self, api: str, agent: dict[str, Any], call: _Call) -> Any:
        """``invoke`` at the call's endpoint, its result read as LangChain users read it."""
        runnable, structured = self._runnable(api, agent, True, call.endpoint)
        with _served(call.downloads):
            result = runnable.invoke(call.written)
        if structured:
            return result
        if result.tool_calls:
            return [ToolCall(c["id"], c["name"], arguments_text(c["args"])) for c in result.tool_calls]
        return text_result(str(result.text), agent)

    def _stream(self, api: str, agent: dict[str, Any], call: _Call) -> Iterator[Any]:
        """``stream`` at the call's endpoint: each chunk's text as it comes, the tool calls of the
        chunks added up (``chunk + chunk``) once it ends."""
        runnable, _ = self._runnable(api, agent, False, call.endpoint)
        whole = None
        with _served(call.downloads):
            for chunk in runnable.stream(call.written):
                text = str(chunk.text)
                if text:
                    yield text
                whole = chunk if whole is None else whole + chunk
        for tool_call in getattr(whole, "tool_calls", None) or []:
            yield ToolCall(tool_call["id"], tool_call["name"], arguments_text(tool_call["args"]))

    def process(self, api: str, agent: dict[str, Any], response: object, *, endpoint: Endpoint) -> Any:
        written = [langchain_inputs.message(m) for m in PROCESS_MESSAGES]
        return self._invoke(api, agent, _Call(written, Downloads(), pointed_at(api, endpoint)))

    def process_stream(
        self, api: str, agent: dict[str, Any], events: Any, *, endpoint: Endpoint
    ) -> Iterator[Any]:
        written = [langchain_inputs.message(m) for m in PROCESS_MESSAGES]
        return self._stream(api, agent, _Call(written, Downloads(), pointed_at(api, endpoint)))

    def execute(
        self,
        api: str,
        agent: dict[str, Any],
        messages: list[dict[str, Any]],
        *,
        endpoint: Endpoint,
    ) -> Any:
        """``invoke`` (``stream`` when the agent asks for a stream) on the chat model pointed at the
        case's ``endpoint``, as in ``process``: the case's recorded exchange answers each request its SDK
        client sends there."""
        written = [langchain_inputs.message(m) for m in openai_inputs.calls_answered(messages)]
        streamed, agent = without_stream(agent)
        run = self._stream if streamed else self._invoke
        return run(api, agent, _Call(written, Downloads(messages), pointed_at(api, endpoint)))


def model_arguments(api: str, agent: dict[str, Any]) -> dict[str, Any]:
    """The chat model's constructor arguments for ``agent`` (its endpoint aside): what the adapter and a
    reproduction (``wireconf.repro.templates``) construct."""
    arguments: dict[str, Any] = {
        "model": (agent.get("model") or {}).get("id") or DEFAULT_MODEL[api],
        "api_key": PLACEHOLDER_KEY,
        "max_retries": 0,
        **langchain_inputs.constructor_options(MODELS[api][3], agent),
    }
    if api == "openai.responses":
        arguments["use_responses_api"] = True
    return arguments


SDK_API_VERSION = {"gemini.generate_content": "v1beta"}
"""The api version of the provider SDK's own endpoint, where the chat model takes one (``api_version``):
langchain-google-genai's default is ``v1``; a user pointing it at a base URL of the Gemini SDK's form
gives the SDK's ``v1beta`` (a reproduction does: ``wireconf.repro.templates``)."""


def pointed_at(api: str, endpoint: Endpoint) -> dict[str, Any]:
    """The chat model's constructor arguments for the case's ``endpoint``, as a user points LangChain
    at a base URL: ``base_url`` (the api's base URL for ``ChatOpenAI``, the origin for the others, whose
    SDKs add the version) and Gemini's ``api_version`` (``SDK_API_VERSION``). ``ChatOpenAI`` turns its
    ``stream_usage`` on by default only at OpenAI's own base URL (``validate_environment``: a stream
    then asks for its usage, ``stream_options``); pointed elsewhere it is given that default, so the
    request judged is the one it sends OpenAI."""
    if api.startswith("openai."):
        return {"base_url": endpoint.api_base_url, "stream_usage": True}
    if api != "gemini.generate_content":
        return {"base_url": endpoint.origin}
    return {"base_url": endpoint.origin, "api_version": endpoint.api_version}


def _load(api: str) -> Any:
    module, cls, _, _ = MODELS[api]
    return getattr(importlib.import_module(module), cls)
