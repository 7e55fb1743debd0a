"""The adapter contract: what a runtime exposes so that the harness can run it through the corpus.

Runtimes outside this repository are written against this module, so its names are a public API:
the kinds, the apis, the capability strings ``<kind>:<api>`` and the method each kind calls. Each is
derived from the records that define it: the kinds (``wireconf.kinds``) and the provider APIs
(``wireconf.providers``), built-in or installed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from wireconf.core.error_categories import categorised, declared_categories
from wireconf.core.errors import WireconfError
from wireconf.core.untyped import AdapterObject, AdapterResult
from wireconf.emulator.routes import Endpoint
from wireconf.kinds.kind import capability
from wireconf.kinds.process import PROCESS_ASYNC
from wireconf.kinds.registry import KIND_NAMES, stream_without_stream
from wireconf.kinds.registry import KINDS as _KIND_OBJECTS
from wireconf.kinds.registry import METHOD_FOR_KIND as _METHOD_FOR_KIND
from wireconf.kinds.wire import TOOL_REGISTRY
from wireconf.providers.registry import API_NAMES

__all__ = [
    "ALL_CONCEPTS",
    "APIS",
    "CONCEPT",
    "CONCEPTS",
    "KINDS",
    "METHOD_FOR_KIND",
    "PROCESS_ASYNC_METHOD",
    "STREAM_KINDS",
    "TOOL_REGISTRY_METHOD",
    "Adapter",
    "Endpoint",
    "Inexpressible",
    "NoRequestSent",
    "NoResult",
    "OutOfProcess",
    "RequestNotSendable",
    "RuntimeOutcome",
    "ToolCalled",
    "capability",
    "categorised",
    "concept",
    "declared_categories",
    "out_of_process",
    "parse_capability",
    "served_kinds",
]

KINDS: tuple[str, ...] = KIND_NAMES
"""What a case exercises: one per kind (``wireconf/kinds/``), built-in or installed."""

APIS: tuple[str, ...] = API_NAMES
"""The provider APIs the corpus covers: one per api record (``wireconf.providers``), built-in or installed."""

METHOD_FOR_KIND: dict[str, str] = _METHOD_FOR_KIND
"""The adapter method the harness calls for each kind (``trace`` observes the spans of the others)."""

PROCESS_ASYNC_METHOD = PROCESS_ASYNC.name
"""Optional: ``async def process_async(api, agent, response)``, §8's async processor. When an adapter has
it, every ``process`` case also awaits it and judges its result against the same expectation."""

TOOL_REGISTRY_METHOD = TOOL_REGISTRY.name
"""Optional: ``set_tool_registry(entries)`` replaces the runtime's registry of custom tools (§7.1.3, kind
``*``) with ``entries`` (``{name, parameters}``, parameters a JSON Schema) before each ``wire`` call.
Required only by cases that declare a ``registry``."""


CONCEPT = "concept"
"""The prefix of a concept capability: ``concept:mcp-tools``."""

CONCEPTS: dict[str, str] = {
    "prompty-tools": "tools of kind `prompty` (§7.1.3: a child .prompty projected as a function)",
    "mcp-tools": "tools of kind `mcp` (§7.1.3: an MCP server's tools, discovered and projected)",
    "openapi-tools": "tools of kind `openapi` (§7.1.3: an OpenAPI document's operations projected)",
    "custom-tools": "tools of another kind (§7.1.3's `*`: the signature from the runtime's tool registry)",
    "tool-bindings": "a tool's `bindings` (§7.1.3: arguments bound to agent inputs, hidden from the LLM)",
    "message-metadata": "a message's `metadata` (§7.1.1: tool_call_id, name, tool_calls, ... merged into "
    "the wire message)",
    "api-type": "`agent.model.apiType` chooses the provider API (§7.2-7.4), and an unknown one raises",
}
"""The spec's optional concepts: a runtime may lack one (it has no MCP client, no notion of bindings).
An adapter declares each concept it has as ``concept:<name>`` beside its ``<kind>:<api>`` capabilities;
a case whose inputs use a concept the adapter does not declare is *unsupported*, never judged
(``wireconf.kinds.concepts`` says which inputs need which concept)."""


def concept(name: str) -> str:
    """The capability string an adapter declares for one of ``CONCEPTS``."""
    return f"{CONCEPT}:{name}"


STREAM_KINDS: tuple[str, ...] = tuple(name for name, kind in _KIND_OBJECTS.items() if kind.streams_only)
"""The kinds whose cases are streams: declared only for an api that has one."""


def served_kinds(adapter: object) -> tuple[str, ...]:
    """The kinds whose method ``adapter`` defines (``METHOD_FOR_KIND``): a runtime declares its
    capabilities from the methods it has, so that no adapter names a kind."""
    return tuple(kind for kind, method in METHOD_FOR_KIND.items() if callable(getattr(adapter, method, None)))


ALL_CONCEPTS: frozenset[str] = frozenset(concept(name) for name in CONCEPTS)
"""Every concept capability: what a runtime that implements the whole spec declares."""


class CapabilityError(WireconfError, ValueError):
    """A capability an adapter declares that cannot exist (malformed, an unknown kind, api or concept, a
    kind of streams on an api without one); a ``ValueError`` too, for the callers that read it as one."""


def parse_capability(text: str) -> tuple[str, str]:
    """Split and validate a capability string (``<kind>:<api>`` or ``concept:<name>``); raises
    ``CapabilityError`` naming what is wrong."""
    kind, sep, api = text.partition(":")
    if not sep:
        raise CapabilityError(f"capability {text!r} is not of the form '<kind>:<api>' or 'concept:<name>'")
    if kind == CONCEPT:
        if api not in CONCEPTS:
            raise CapabilityError(
                f"capability {text!r}: unknown concept {api!r} (known: {', '.join(CONCEPTS)})"
            )
        return kind, api
    if kind not in KINDS:
        raise CapabilityError(f"capability {text!r}: unknown kind {kind!r} (known: {', '.join(KINDS)})")
    if api not in APIS:
        raise CapabilityError(f"capability {text!r}: unknown api {api!r} (known: {', '.join(APIS)})")
    impossible = stream_without_stream(kind, api)
    if impossible:
        raise CapabilityError(
            f"capability {text!r}: {impossible} and no such capability; remove it from the capabilities the "
            f"adapter declares (a `stream` option of an {api} request is a wire or e2e matter)"
        )
    return kind, api


class RuntimeOutcome(Exception):
    """What an adapter observed the runtime it wraps do, raised as that runtime's outcome of the call.

    An adapter that stands where the runtime expects an SDK client or an HTTP transport sees what the
    runtime does there; when that is not a request to judge (it sent none, or one no SDK could send),
    the adapter raises one of these in the runtime's place. The case judges it like any exception of
    the runtime: against ``expect_error`` it is *uncategorised* (it derives from none of the classes
    ``wireconf.core.error_categories`` maps, so it never stands for ``invalid-input`` or another of the
    spec's errors), and elsewhere the verdict names its class and message. It is neither a user's error
    nor the harness's: never a ``WireconfError``, which would turn a verdict into an error."""


class NoRequestSent(RuntimeOutcome):
    """The runtime returned, or stopped, without sending the request the call is about (LangChain or
    LiteLLM sent nothing through the transport, prompty's executor never called its SDK client)."""


class RequestNotSendable(RuntimeOutcome):
    """The runtime handed its SDK client a request no SDK could send: arguments that are not keywords, a
    body that is not JSON (an object of its own, a key that is not a string)."""


class NoResult(RuntimeOutcome):
    """The runtime returned without the result its users read (LiteLLM's ``ModelResponse`` whose
    ``choices`` is empty, where its users read ``choices[0].message``): what their code would fail on,
    reported as the runtime's outcome rather than as the adapter's own ``IndexError``."""


class ToolCalled(RuntimeOutcome):
    """The runtime executed a tool the harness registered for request building only (a ``wire`` case
    never executes one)."""


class Inexpressible(Exception):
    """The case's input has no form in the runtime: its users cannot write it (an image in a system
    message where the runtime's system prompt is text only, a role it has no word for, a part kind its
    messages have no place for). The adapter raises it, with the reason, instead of calling the runtime
    with something else; the case is then *unsupported* by this runtime (counted and shown as such, with
    the reason), neither a verdict on the runtime nor an error of the harness. Over ``exec:`` it is an
    error message that says ``inexpressible: true`` (``@wireconf/exec``: ``Inexpressible``).

    Raise it only where the runtime's own interface has no way to say the input, as its documentation
    or source shows; a runtime that accepts the input and then refuses it or gets it wrong is judged."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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

    Optional attributes: ``adapter_modules`` (the modules of the adapter's own code, by default the
    module of its class) and ``runtime_packages`` (the runtime's packages): an exception raised by the
    adapter's own code is an error naming the adapter, never a verdict on the runtime
    (``wireconf.core.raise_site``).

    Inputs use the spec's canonical vocabulary (plain dicts, camelCase keys). Results are plain data
    (str, numbers, bool, None, lists, mappings) or objects exposing the spec's fields, such as a
    ToolCall with ``id``, ``name`` and ``arguments``.
    """

    name: str
    version: str

    def capabilities(self) -> set[str]: ...


class SupportsWire(Protocol):
    def build_request(
        self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]]
    ) -> AdapterResult: ...


class SupportsProcess(Protocol):
    def process(self, api: str, agent: dict[str, Any], response: object) -> AdapterResult: ...


class SupportsStream(Protocol):
    def process_stream(
        self, api: str, agent: dict[str, Any], events: Iterable[object]
    ) -> Iterable[AdapterResult]: ...


class SupportsProcessAsync(Protocol):
    async def process_async(self, api: str, agent: dict[str, Any], response: object) -> AdapterResult: ...


class SupportsToolRegistry(Protocol):
    def set_tool_registry(self, entries: list[dict[str, Any]]) -> None: ...


@runtime_checkable
class OutOfProcess(Protocol):
    """An adapter whose calls run in another process (``exec:``): it bounds its own calls and restarts
    by the time limit, so the harness runs its cases inline (``pytest_plugin/runners/inline.py``), and it
    may take the calls of the cases the run has next before they run (``sends_ahead``). The runners
    reach such an adapter through these members only; an adapter has them or is run in-process.

    ``network``: how the network is blocked where the runtime runs (shown in the session's header).
    ``ready(timeout)``: returns once the runtime is started and warm (restarted if it was lost).
    ``time_limit(seconds)``: the block in which one case's calls run, stopped when they overrun.
    ``send_ahead(case, call)``: capture the messages ``call`` (the case's prepared call, given the
    adapter) writes, for the runtime to start on; ``has_sent_ahead(case)``, ``keep_ahead(cases)`` (give
    up the calls of cases no longer next), ``flush()`` (write what was captured), ``claimed(case)``: the
    block in which ``case``'s own run reads the answers written ahead for it. ``close()``: stop the
    runtime. ``late_faults``: what the runtime sent for a call whose case was already reported (each
    naming that case): the run fails on them, never the case that happened to be running."""

    network: str
    sends_ahead: bool

    @property
    def late_faults(self) -> list[str]: ...

    def ready(self, timeout: float | None) -> None: ...

    def time_limit(self, seconds: float | None) -> AbstractContextManager[None]: ...

    def send_ahead(self, case: str, call: Callable[[AdapterObject], object]) -> None: ...

    def has_sent_ahead(self, case: str) -> bool: ...

    def keep_ahead(self, cases: Iterable[str]) -> None: ...

    def claimed(self, case: str) -> AbstractContextManager[None]: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...


def out_of_process(adapter: AdapterObject) -> OutOfProcess | None:
    """``adapter`` as an ``OutOfProcess`` one, or ``None`` when it runs in this process."""
    return adapter if isinstance(adapter, OutOfProcess) else None


@runtime_checkable
class ReadsRecorded(Protocol):
    """An adapter whose runtime parses each SDK input from its recorded response with its own SDK
    (``exec:`` whose hello says ``inputs: recorded``, with no endpoint): when ``reads_recorded`` is true,
    the harness hands its calls the recorded responses unparsed, so the session neither imports the
    SDKs nor has them parse the recordings for the kinds that give such inputs (``Kind.runtime_input``)."""

    reads_recorded: bool


def reads_recorded(adapter: AdapterObject) -> bool:
    """Whether ``adapter``'s calls take recorded responses in place of SDK objects (``ReadsRecorded``)."""
    return isinstance(adapter, ReadsRecorded) and adapter.reads_recorded is True
