"""The ``prompty`` adapter: prompty's own executors and processors (PyPI ``prompty``) through the corpus.

Install with ``pip install -e '.[prompty]'``; run with ``pytest cases --impl prompty``.

- ``wire``: prompty's executor for the agent's provider runs for real (``execute(agent, messages)``)
  against a capturing client; the keyword arguments it passes to the SDK method are the request body.
- ``process``: what the pipeline step ``prompty.process(agent, response)`` does: the processor of
  the agent's provider, ``processor.process(agent, response)``, with the official SDK's response.
- ``stream``: the same ``prompty.process`` with the SDK stream wrapped in ``PromptyStream``, exactly
  as prompty's executors hand a stream to its processors; the generator it returns is the result.
- ``e2e``: what ``prompty.run(agent, messages)`` does, the provider's executor then its processor,
  with the SDK client the harness hands over registered as a reference connection (the seam ``wire``
  uses with its capture). A stream comes back as prompty's generator and is drained by the harness.
  prompty has no Gemini provider, so gemini.generate_content is not declared for any kind.
- ``trace``: prompty's own OpenTelemetry backend is switched on as its documentation says; the spans
  of its ``process`` calls and of its ``execute`` (e2e above) are judged.

Image streams: prompty's image executor passes ``stream`` (an additional property) to
``images.generate`` and hands the SDK stream it gets back, unwrapped, to the OpenAI processor; the
adapter does the same, so ``stream:openai.images`` is declared and judged like every other stream.

prompty dispatches on ``agent.model.provider``; for a case whose agent names none, the adapter picks
the provider of the api under test (prompty's loader would give the wildcard ``"*"``, which nothing
serves).

The adapter never adjusts prompty's output. The one representation step: when prompty passes an SDK
object through unprocessed (it does so for responses it does not recognise), that object is shown as
its JSON, so the diff shows what came back instead of an unjudgeable object.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from wireconf.adapter_contract import (
    ALL_CONCEPTS,
    STREAM_KINDS,
    NoRequestSent,
    ToolCalled,
    capability,
    served_kinds,
)
from wireconf.adapters._optional import optional_module
from wireconf.adapters.prompty_adapter.capture import CapturingClient, RequestCaptured, as_request_body
from wireconf.adapters.prompty_adapter.inputs import load_agent, load_messages
from wireconf.core.untyped import JSON, AdapterResult, SDKObject
from wireconf.kinds.trace import KIND as TRACE
from wireconf.providers.provider import api_names_json

OPENAI_APIS = ("openai.chat", "openai.embeddings", "openai.images", "openai.responses")
STREAMING_APIS = ("openai.chat", "openai.responses", "openai.images", "anthropic.messages")
UNWRAPPED_STREAMS = ("openai.images",)
"""Apis whose executor returns the SDK stream itself rather than a ``PromptyStream``."""
APIS = (*OPENAI_APIS, "anthropic.messages")
API_PROVIDER = {api: api.split(".")[0] for api in APIS}
"""The provider prompty dispatches on when a case's agent names none (prompty's default provider)."""

_names = itertools.count(1)


def _sdk_object_as_json(value: SDKObject) -> JSON:
    """An SDK model object (openai / anthropic) as its JSON, as the SDK parsed it; anything else
    unchanged."""
    if callable(getattr(value, "to_dict", None)) and hasattr(type(value), "model_fields"):
        return api_names_json(value)
    if isinstance(value, list):
        return [_sdk_object_as_json(item) for item in value]
    return value


def _items(result: AdapterResult) -> Iterator[AdapterResult]:
    """The items of what prompty's processor returned for a stream: its generator's items, else (it
    returned something that is not a stream of items) that value as the one item."""
    if isinstance(result, Iterator):
        yield from result
    else:
        yield _sdk_object_as_json(result)


def _provider(api: str, agent: JSON) -> str:
    """The provider key prompty dispatches on: the agent's, else the api's.

    prompty's loader gives a model that names no provider the wildcard ``"*"``, which no executor
    serves (and ``register_default_provider`` does not replace); the api under test names it instead.
    """
    provider = agent.model.provider
    return API_PROVIDER[api] if provider in (None, "", "*") else str(provider)


def _enable_otel_tracing() -> bool:
    """Turn on prompty's own OpenTelemetry backend, the way its documentation tells users to
    (``Tracer.add("otel", otel_tracer())``; needs ``opentelemetry-api``, prompty's ``otel`` extra), so
    that the spans its ``@trace``-decorated executors and processors emit reach the harness. False when
    prompty's backend cannot be imported."""
    try:
        from prompty.tracing.otel import otel_tracer
        from prompty.tracing.tracer import Tracer
    except ImportError:
        return False
    Tracer.add("otel", otel_tracer())
    return True


def _registered_tool(**arguments: Any) -> Any:
    """The handler registered for a case's custom tool: wire cases never execute tools, so prompty
    calling it is its outcome (``ToolCalled``)."""
    raise ToolCalled("wireconf registered this tool for request building only")


class PromptyAdapter:
    """prompty's OpenAI and Anthropic providers (chat, embeddings, images, Responses API, Messages)."""

    name = "prompty"
    adapter_modules = ("wireconf.adapters.prompty_adapter",)
    """This adapter's own code (``wireconf.core.raise_site``): an exception it raises is its bug, no
    verdict."""
    runtime_packages = ("prompty",)
    """prompty; the SDKs and libraries it calls raise for whoever called them."""

    def __init__(self) -> None:
        self._prompty, self.version, self.unavailable = optional_module(
            "prompty", "prompty", "install the extra: pip install -e '.[prompty]'"
        )
        self._capture_name = f"wireconf-capture-{next(_names)}"
        self._traced = False
        if self._prompty is not None:
            self._prompty.register_connection(self._capture_name, client=CapturingClient())
            self._traced = _enable_otel_tracing()

    def capabilities(self) -> set[str]:
        if self._prompty is None:
            return set()
        caps = {
            capability(kind, api)
            for kind in served_kinds(self)
            for api in (STREAMING_APIS if kind in STREAM_KINDS else APIS)
        }
        if self._traced:  # the spans of its process and execute calls
            caps |= {capability(TRACE.name, api) for api in APIS}
        return caps | ALL_CONCEPTS  # the spec's own runtime

    # -- wire ---------------------------------------------------------------------------------------

    def set_tool_registry(self, entries: list[dict[str, Any]]) -> None:
        """prompty's name registry (``register_tool``, spec §11.2 layer 1) holds a handler per tool name.
        It has no place for a signature, so the entries are registered by name with a handler that is
        never called here; what prompty then sends for a custom tool is prompty's own behaviour."""
        from prompty.core.tool_dispatch import clear_tools, register_tool

        clear_tools()
        for entry in entries:
            register_tool(str(entry["name"]), _registered_tool)

    def build_request(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> AdapterResult:
        from prompty.core.discovery import get_executor

        loaded = load_agent(agent, connection=self._capture_name)
        executor = get_executor(_provider(api, loaded))
        try:
            executor.execute(loaded, load_messages(messages))
        except RequestCaptured as captured:
            return as_request_body(captured.arguments)
        raise NoRequestSent("prompty's executor returned without calling its SDK client")

    # -- process / stream ---------------------------------------------------------------------------

    def _process(self, api: str, agent: JSON, response: object) -> AdapterResult:
        """``prompty.process``: the provider's processor, ``processor.process(agent, response)``."""
        from prompty.core.discovery import get_processor

        return get_processor(_provider(api, agent)).process(agent, response)

    def process(self, api: str, agent: dict[str, Any], response: object) -> AdapterResult:
        return _sdk_object_as_json(self._process(api, load_agent(agent), response))

    def process_stream(
        self, api: str, agent: dict[str, Any], events: Iterable[object]
    ) -> Iterator[AdapterResult]:
        from prompty.core.types import PromptyStream

        loaded = load_agent(agent)
        executor_name = "AnthropicExecutor" if api.startswith("anthropic.") else "OpenAIExecutor"
        stream = iter(events) if api in UNWRAPPED_STREAMS else PromptyStream(executor_name, iter(events))
        yield from _items(self._process(api, loaded, stream))

    # -- e2e ----------------------------------------------------------------------------------------

    def execute(
        self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], client: SDKObject
    ) -> AdapterResult:
        """``prompty.run``'s two steps, executor then processor, through the harness's SDK client."""
        from prompty.core.discovery import get_executor

        name = f"wireconf-e2e-{next(_names)}"
        assert self._prompty is not None, "e2e is declared only when prompty is installed"
        self._prompty.register_connection(name, client=client)
        loaded = load_agent(agent, connection=name)
        response = get_executor(_provider(api, loaded)).execute(loaded, load_messages(messages))
        result = self._process(api, loaded, response)
        return _items(result) if isinstance(result, Iterator) else _sdk_object_as_json(result)
