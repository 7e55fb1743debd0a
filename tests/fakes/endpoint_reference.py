"""The reference served over the case's endpoint: a runtime that reaches the provider only by a base URL.

Each method declares the keyword-only ``endpoint`` and points the official SDK at it
(``openai.OpenAI(base_url=endpoint.api_base_url)``, ``anthropic.Anthropic(base_url=endpoint.origin)``,
``genai.Client(http_options={"base_url": endpoint.origin, "api_version": endpoint.api_version})``),
then runs the reference's own functions on what the SDK read over HTTP: ``wire`` sends the body the
reference builds and returns nothing (the emulator captured it), ``process`` / ``stream`` ignore the
SDK object they are handed and ask the endpoint for the response (the recorded bytes, parsed by the
SDK's real HTTP path), ``e2e`` sends through its own client (its ``execute`` takes no ``client``: the
harness builds none). The SDK
objects it is handed are never read (but ``response_as: mapping`` cases, whose input is a dict and
no SDK call: they are the reference's as given).

``AsyncOnly`` is a runtime with only ``async def`` methods (``openai.AsyncOpenAI``), no sync wrapper
and no private attribute of any client.
"""

from __future__ import annotations

import os
import ssl
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

import httpx

from wireconf.adapter_contract import Endpoint
from wireconf.providers.registry import APIS
from wireconf.reference_impl.adapter import FUNCTIONS, ReferenceAdapter
from wireconf.reference_impl.apis import APIS as PARTS
from wireconf.reference_impl.process_async import process_async
from wireconf.reference_impl.sdk_execute import asks_for_stream, execute_with, send

KINDS = ("wire", "process", "stream", "e2e", "trace")


_HTTP: dict[tuple[int, str], Any] = {}
"""One HTTP client per SDK for the process's life, as a runtime keeps one (a new one builds its TLS
context: tens of milliseconds), shared by the SDK clients each call points at its own endpoint."""


def _http(provider: str, make: Any) -> Any:
    key = (os.getpid(), provider)  # never a pool inherited through a fork
    if key not in _HTTP:
        _HTTP[key] = make()
    return _HTTP[key]


def client(api: str, endpoint: Endpoint) -> Any:
    """The api's official SDK client, pointed at the endpoint (no retries: one request is one answer)."""
    provider = api.partition(".")[0]
    if provider == "openai":
        import openai

        http = _http(provider, openai.DefaultHttpxClient)
        return openai.OpenAI(
            base_url=endpoint.api_base_url, api_key=endpoint.key, max_retries=0, http_client=http
        )
    if provider == "anthropic":
        import anthropic

        http = _http(provider, anthropic.DefaultHttpxClient)
        return anthropic.Anthropic(
            base_url=endpoint.origin, api_key=endpoint.key, max_retries=0, http_client=http
        )
    from google import genai
    from google.genai import types

    # google-genai takes an httpx (or httpx2) client as it is; unless given them it makes an async one
    # and a TLS context for its websockets with every client (tens of milliseconds)
    http, unused = _http(provider, httpx.Client), _http("google-async", httpx.AsyncClient)
    tls = _http("google-tls", ssl.create_default_context)
    options = types.HttpOptions(
        base_url=endpoint.origin,
        api_version=endpoint.api_version,
        httpx_client=http,
        httpx_async_client=unused,
        async_client_args={"ssl": tls},
    )
    return genai.Client(api_key=endpoint.key, http_options=options)


def fetched(api: str, endpoint: Endpoint, stream: bool) -> Any:
    """The response (or stream) the endpoint serves, as the SDK's object: the call a user makes."""
    return APIS[api].call(client(api, endpoint), {}, stream)


class Adapter:
    name = "reference-over-endpoint"
    version = ReferenceAdapter.version
    adapter_modules = ()  # what the reference raises is the runtime's outcome

    def capabilities(self) -> set[str]:
        return {c for c in ReferenceAdapter().capabilities() if c.partition(":")[0] in (*KINDS, "concept")}

    def set_tool_registry(self, entries: list[dict[str, Any]]) -> None:
        ReferenceAdapter().set_tool_registry(entries)

    def build_request(
        self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], *, endpoint: Endpoint
    ) -> None:
        body = dict(FUNCTIONS[("wire", api)](agent, messages))
        stream = asks_for_stream(PARTS[api], agent, body)
        answer = send(api, client(api, endpoint), body, agent["model"]["id"], stream)
        if stream:
            for _ in answer:  # read to its end, as a runtime does
                pass

    def process(self, api: str, agent: dict[str, Any], response: Any, *, endpoint: Endpoint) -> Any:
        if isinstance(response, dict):  # response_as: mapping: no SDK call gives a dict
            return FUNCTIONS[("process", api)](agent, response)
        return FUNCTIONS[("process", api)](agent, fetched(api, endpoint, stream=False))

    async def process_async(
        self, api: str, agent: dict[str, Any], response: Any, *, endpoint: Endpoint
    ) -> Any:
        given = response if isinstance(response, dict) else fetched(api, endpoint, stream=False)
        return await process_async(FUNCTIONS[("process", api)], agent, given)

    def process_stream(
        self, api: str, agent: dict[str, Any], events: Iterable[Any], *, endpoint: Endpoint
    ) -> Iterable[Any]:
        stream = fetched(api, endpoint, stream=True)
        try:
            yield from FUNCTIONS[("stream", api)](agent, stream)
        finally:  # a processor that raises mid-stream leaves the response open in the shared pool,
            # whose finaliser a later collection may run inside httpcore's pool lock: closed here
            close = getattr(stream, "close", None)
            if close is not None:
                close()

    def execute(
        self,
        api: str,
        agent: dict[str, Any],
        messages: list[dict[str, Any]],
        *,
        endpoint: Endpoint,
    ) -> Any:
        parts = PARTS[api]
        return execute_with(
            api, agent, messages, client(api, endpoint), parts.wire, parts.process, parts.stream
        )


adapter = Adapter()


PAUSE = 1.5
"""Seconds longer than the clock gate's stall (``HOLD_STALL``, 1 s): see ``Paused``."""


class Paused(Adapter):
    """The reference over endpoints, working on the CPU for ``PAUSE`` seconds before each stream's first
    item (a collection's pause, a slow parse, a loaded machine's wait for a core): it still processes
    the stream as it reads, and the emulator's gate must not take it for one that buffers."""

    def process_stream(
        self, api: str, agent: dict[str, Any], events: Iterable[Any], *, endpoint: Endpoint
    ) -> Iterable[Any]:
        for number, item in enumerate(super().process_stream(api, agent, events, endpoint=endpoint)):
            if number == 0:
                end = time.monotonic() + PAUSE
                while time.monotonic() < end:
                    pass
            yield item


paused = Paused()


class AsyncOnly:
    """OpenAI Chat through ``openai.AsyncOpenAI`` alone: ``async def`` methods, the endpoint, nothing else."""

    name = "async-only"
    version = "0.0.1"
    adapter_modules = ()

    def capabilities(self) -> set[str]:
        return {"process:openai.chat", "e2e:openai.chat", "concept:api-type"}

    @staticmethod
    def _client(endpoint: Endpoint) -> Any:
        import openai

        return openai.AsyncOpenAI(base_url=endpoint.api_base_url, api_key=endpoint.key, max_retries=0)

    async def process(self, api: str, agent: dict[str, Any], response: Any, *, endpoint: Endpoint) -> Any:
        if isinstance(response, dict):
            return FUNCTIONS[("process", api)](agent, response)
        async with self._client(endpoint) as sdk:
            fetched = await sdk.chat.completions.create(model="wireconf-replay", messages=[])
        return FUNCTIONS[("process", api)](agent, fetched)

    async def execute(
        self,
        api: str,
        agent: dict[str, Any],
        messages: list[dict[str, Any]],
        *,
        endpoint: Endpoint,
    ) -> AsyncIterator[Any] | Any:
        body = dict(FUNCTIONS[("wire", api)](agent, messages))
        async with self._client(endpoint) as sdk:
            answer = await send(api, sdk, body, agent["model"]["id"], body.get("stream") is True)
            if body.get("stream") is not True:
                return FUNCTIONS[("process", api)](agent, answer)
            chunks = [chunk async for chunk in answer]
        return list(FUNCTIONS[("stream", api)](agent, chunks))


async_only = AsyncOnly()
