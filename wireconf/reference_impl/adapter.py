"""The reference implementation behind the adapter contract (entry point ``reference``).

The provider APIs (``wireconf.reference_impl.apis``, one record per api package) give the ``wire``,
``process`` and ``stream`` functions; each other part (one package per design document, and ``sdk_execute``
for ``e2e`` and ``trace``) exposes ``FUNCTIONS[(kind, api)]``. The adapter's capabilities are exactly the keys
of their union, and each adapter method calls the function registered for its kind and api, with the api
dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from wireconf.reference_impl import (
    __version__,
    payload_extractors,
    response_converter,
    sdk_execute,
    stream_blocks,
)
from wireconf.reference_impl.apis import APIS
from wireconf.reference_impl.process_async import process_async
from wireconf.reference_impl.tool_kinds.registry import set_registry

PARTS = (stream_blocks, payload_extractors, response_converter, sdk_execute)
"""The parts that are not one provider API's: each exposes ``FUNCTIONS[(kind, api)]``."""

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    **{key: function for api in APIS.values() for key, function in api.functions.items()},
    **{key: function for part in PARTS for key, function in part.FUNCTIONS.items()},
}


CONCEPTS = (
    "prompty-tools",
    "mcp-tools",
    "openapi-tools",
    "custom-tools",
    "tool-bindings",
    "message-metadata",
    "api-type",
)
"""Every optional concept of the spec (the adapter contract's ``CONCEPTS``): the reference has them all."""


class ReferenceAdapter:
    name = "reference"
    version = __version__

    def capabilities(self) -> set[str]:
        return {f"{kind}:{api}" for kind, api in FUNCTIONS} | {f"concept:{name}" for name in CONCEPTS}

    def build_request(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> Any:
        return FUNCTIONS[("wire", api)](agent, messages)

    def process(self, api: str, agent: dict[str, Any], response: Any) -> Any:
        return FUNCTIONS[("process", api)](agent, response)

    async def process_async(self, api: str, agent: dict[str, Any], response: Any) -> Any:
        return await process_async(FUNCTIONS[("process", api)], agent, response)

    def set_tool_registry(self, entries: list[dict[str, Any]]) -> None:
        set_registry(entries)

    def process_stream(self, api: str, agent: dict[str, Any], events: Iterable[Any]) -> Iterable[Any]:
        items: Iterable[Any] = FUNCTIONS[("stream", api)](agent, events)
        return items

    def stream_blocks(self, api: str, events: Iterable[Any]) -> Any:
        return FUNCTIONS[("blocks", api)](events)

    def extract(self, api: str, request: Any, response: Any) -> Any:
        return FUNCTIONS[("extract", api)](request, response)

    def convert(self, api: str, response: Any, stream: bool) -> Any:
        return FUNCTIONS[("convert", api)](response, stream)

    def execute(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], client: Any) -> Any:
        return FUNCTIONS[("e2e", api)](agent, messages, client)
