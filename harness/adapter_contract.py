"""The adapter contract: what a runtime exposes so that the harness can run it through the corpus.

Runtimes outside this repository are written against this module, so its names are a public API:
the kinds, the apis, the capability strings ``<kind>:<api>`` and the method each kind calls. Each is
derived from the records that define it: the kinds (``harness.kinds``) and the provider APIs
(``harness.providers``), built-in or installed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

from harness.kinds.kind import capability
from harness.kinds.process import PROCESS_ASYNC
from harness.kinds.registry import KIND_NAMES
from harness.kinds.registry import METHOD_FOR_KIND as _METHOD_FOR_KIND
from harness.kinds.wire import TOOL_REGISTRY
from harness.providers.registry import API_NAMES

__all__ = [
    "APIS",
    "KINDS",
    "METHOD_FOR_KIND",
    "PROCESS_ASYNC_METHOD",
    "TOOL_REGISTRY_METHOD",
    "Adapter",
    "capability",
    "parse_capability",
]

KINDS: tuple[str, ...] = KIND_NAMES
"""What a case exercises: one per kind (``harness/kinds/``), built-in or installed."""

APIS: tuple[str, ...] = API_NAMES
"""The provider APIs the corpus covers: one per api record (``harness.providers``), built-in or installed."""

METHOD_FOR_KIND: dict[str, str] = _METHOD_FOR_KIND
"""The adapter method the harness calls for each kind (``trace`` observes the spans of the others)."""

PROCESS_ASYNC_METHOD = PROCESS_ASYNC.name
"""Optional: ``async def process_async(api, agent, response)``, §8's async processor. When an adapter has
it, every ``process`` case also awaits it and judges its result against the same expectation."""

TOOL_REGISTRY_METHOD = TOOL_REGISTRY.name
"""Optional: ``set_tool_registry(entries)`` replaces the runtime's registry of custom tools (§7.1.3, kind
``*``) with ``entries`` (``{name, parameters}``, parameters a JSON Schema) before each ``wire`` call.
Required only by cases that declare a ``registry``."""


def parse_capability(text: str) -> tuple[str, str]:
    """Split and validate a capability string; raises ``ValueError`` naming what is wrong."""
    kind, sep, api = text.partition(":")
    if not sep:
        raise ValueError(f"capability {text!r} is not of the form '<kind>:<api>'")
    if kind not in KINDS:
        raise ValueError(f"capability {text!r}: unknown kind {kind!r} (known: {', '.join(KINDS)})")
    if api not in APIS:
        raise ValueError(f"capability {text!r}: unknown api {api!r} (known: {', '.join(APIS)})")
    return kind, api


@runtime_checkable
class Adapter(Protocol):
    """The minimum every adapter has; the per-kind methods below are needed only for declared kinds.

    ``build_request(api, agent, messages) -> dict``                 wire
    ``process(api, agent, response) -> object``                     process (response: the SDK's object)
    ``process_stream(api, agent, events) -> Iterable``              stream (events: the SDK's stream)
    ``stream_blocks(api, events) -> list[dict]``                    blocks
    ``extract(api, request, response) -> dict``                     extract
    ``convert(api, response, stream) -> list[dict]``                convert
    ``execute(api, agent, messages, client) -> object``             e2e

    Optional: ``async process_async(api, agent, response) -> object`` (awaited beside ``process``) and
    ``set_tool_registry(entries) -> None`` (custom tools of ``wire`` cases).

    Inputs use the spec's canonical vocabulary (plain dicts, camelCase keys). Results are plain data
    (str, numbers, bool, None, lists, mappings) or objects exposing the spec's fields, such as a
    ToolCall with ``id``, ``name`` and ``arguments``.
    """

    name: str
    version: str

    def capabilities(self) -> set[str]: ...


class SupportsWire(Protocol):
    def build_request(self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]]) -> Any: ...


class SupportsProcess(Protocol):
    def process(self, api: str, agent: dict[str, Any], response: object) -> Any: ...


class SupportsStream(Protocol):
    def process_stream(self, api: str, agent: dict[str, Any], events: Iterable[object]) -> Iterable[Any]: ...


class SupportsProcessAsync(Protocol):
    async def process_async(self, api: str, agent: dict[str, Any], response: object) -> Any: ...


class SupportsToolRegistry(Protocol):
    def set_tool_registry(self, entries: list[dict[str, Any]]) -> None: ...
