"""What a kind of case is: the typed extension point every kind module implements.

A kind has a name, a case model (pydantic, ``kind: Literal["<name>"]``), a noun for its result in
messages, the adapter method it calls (``AdapterMethod``) and ``prepare``: the inputs are built
(cassette → SDK object) outside the time limit, and the returned ``Call`` is what runs under it.
Everything else has a default that a kind overrides when it needs to (``judge``, ``unsupported``,
``bless``, ``recorded_document``, …). The registry (``wireconf.kinds.registry``) is built from the kind
modules and from installed extensions, and every table that lists kinds is derived from it: no module
outside ``wireconf/kinds/`` names a kind.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from wireconf.cassettes.store import CassetteError, RecordedResponse
from wireconf.core.differences import Line, Subject
from wireconf.core.errors import BlessError, CaseInputError, ContractError
from wireconf.core.untyped import AdapterObject, AdapterResult
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import CaseBase, CassetteRef, InlineResponse
from wireconf.judging.outcome import CanonicalOutcome, Outcome
from wireconf.judging.verdict import judge as judge_result
from wireconf.kinds.base import ADAPTER_ERRORS, HarnessContext, raised, recorded_response
from wireconf.kinds.event_loop import run_to_completion

if TYPE_CHECKING:
    from wireconf.core.stream_probe import StreamProbe
    from wireconf.emulator.routes import Endpoint

ModelT = TypeVar("ModelT", bound=CaseBase)
ContextT = TypeVar("ContextT")

Call = Callable[[AdapterObject], Outcome[ContextT]]
"""Given the adapter object, run the case's adapter call and report its outcome."""


def capability(kind: str, api: str) -> str:
    """The capability string an adapter declares to receive cases of ``kind`` on ``api``."""
    return f"{kind}:{api}"


@dataclass(frozen=True)
class AdapterMethod:
    """A method of the adapter contract: what the harness calls and how its arguments travel.

    ``params`` are the arguments after ``api`` (none when ``takes_api`` is false), by name: an
    out-of-process runtime receives them by these names. The ``sdk`` ones are official SDK objects (a
    response, or a stream of events): over ``exec:`` a response travels as the provider's JSON and is
    rebuilt by the SDK on the other side, a stream's events are pulled one by one. ``http_client`` names
    the argument that is an official SDK client: over ``exec:`` the runtime gets its description and
    sends its HTTP through it (protocol 2). A method that ``yields`` returns an iterable whose items are
    the result; one that ``may_stream`` returns a value or such an iterable; one that ``collects`` may
    return its list as an iterator; an ``awaited`` one is ``async def``: what it returns is awaited on
    this thread's event loop (``wireconf.kinds.event_loop``), and must be awaitable.

    ``invoke`` is the one path by which every kind calls the adapter: a kind declares the method and
    hands it the case's arguments; only what it checks around the call (a request body is a mapping, a
    payload left unchanged) is its own.
    """

    name: str
    params: tuple[str, ...]
    sdk: tuple[str, ...] = ()
    http_client: str | None = None
    yields: bool = False
    may_stream: bool = False
    awaited: bool = False
    takes_api: bool = True
    collects: bool = False

    def takes_endpoint(self, adapter: AdapterObject) -> bool:
        """Whether ``adapter``'s method declares the keyword-only ``endpoint`` (``MethodShape``): its
        case then opens a site on the emulator; no other adapter pays for one."""
        method = getattr(adapter, self.name, None)
        return method is not None and shape_of(method).endpoint

    def invoke(
        self,
        adapter: AdapterObject,
        api: str | None,
        *args: Any,
        probes: Sequence[StreamProbe] = (),
        endpoint: Endpoint | None = None,
    ) -> Outcome[Any]:
        """Call this method of ``adapter`` (by its name, with ``api`` first when it takes one) and report
        its outcome: what it raised (an outcome, with its traceback, not an error of the harness), or
        its value. An iterable result of a method that yields (an iterator of one that may stream or
        collects) is drained item by item, so that what came before an exception is kept (``yielded``),
        and the stream probe of its input (``probes``: the first, filled as the call opens it for an
        e2e call) notes at each item how many events the SDK had read. ``endpoint`` is passed, as the
        keyword ``endpoint``, to a method that declares it (``MethodShape``). A coroutine function is
        awaited, an async generator function drained, on this thread's event loop."""
        arguments = (*((api,) if self.takes_api else ()), *args)
        try:
            function = getattr(adapter, self.name)
        except ADAPTER_ERRORS as exc:
            return raised(exc)
        shape = shape_of(function)
        keywords = {"endpoint": endpoint} if shape.endpoint else {}
        if self.awaited:
            return self._awaited(function, arguments, keywords)
        items: list[AdapterResult] = []
        kept = self.yields or self.may_stream  # the items are the result as it streamed
        try:
            if shape.asynchronous == "generator":
                run_to_completion(_drained(function(*arguments, **keywords), items, probes))
                return Outcome(value=items, yielded=items, probe=probes[0] if probes else None)
            value = function(*arguments, **keywords)
            if shape.asynchronous == "coroutine":
                value = run_to_completion(value)
            streamed = isinstance(value, Iterator) and (self.may_stream or self.collects)
            if self.yields or streamed or (self.may_stream and probes and isinstance(value, list | tuple)):
                for item in value:
                    if probes:
                        probes[0].mark_yield()
                    items.append(item)
                value = items
        except ADAPTER_ERRORS as exc:
            return raised(exc, yielded=items if kept else [], probe=probes[0] if probes else None)
        return Outcome(value=value, yielded=items if kept else [], probe=probes[0] if probes else None)

    def _awaited(
        self, function: Callable[..., Any], arguments: tuple[Any, ...], keywords: dict[str, Any]
    ) -> Outcome[Any]:
        """An ``async def`` method's outcome: called, then what it returned awaited to completion. What
        it returns must be awaitable; else a ``ContractError``, raised past the outcome (the adapter is
        declared wrong: its runtime did nothing to judge)."""
        try:
            awaitable = function(*arguments, **keywords)
        except ADAPTER_ERRORS as exc:
            return raised(exc)
        if not inspect.isawaitable(awaitable):
            raise ContractError(
                f"{self.name} returned {type(awaitable).__name__}, not an awaitable: "
                f"declare it `async def {self.signature.removeprefix('async ')}`"
            )
        try:
            return Outcome(value=run_to_completion(awaitable))
        except ADAPTER_ERRORS as exc:
            return raised(exc)

    @property
    def signature(self) -> str:
        """``name(api, params...)``, as the adapter guide writes it."""
        params = ("api", *self.params) if self.takes_api else self.params
        return f"{'async ' if self.awaited else ''}{self.name}({', '.join(params)})"


@dataclass(frozen=True)
class MethodShape:
    """What an adapter method's own signature declares: whether it takes the case's ``Endpoint`` (a
    keyword-only parameter named ``endpoint``) and whether it is ``async def`` (``"coroutine"``) or an
    async generator (``"generator"``). Read from the function, never from what it returns."""

    endpoint: bool
    asynchronous: Literal["", "coroutine", "generator"]


@cache
def _shape_of_function(function: Callable[..., Any]) -> MethodShape:
    try:
        parameter = inspect.signature(function).parameters.get("endpoint")
    except (TypeError, ValueError):  # a callable without a signature (a builtin): it declares nothing
        parameter = None
    endpoint = parameter is not None and parameter.kind is inspect.Parameter.KEYWORD_ONLY
    if inspect.isasyncgenfunction(function):
        return MethodShape(endpoint, "generator")
    return MethodShape(endpoint, "coroutine" if inspect.iscoroutinefunction(function) else "")


def shape_of(method: Callable[..., Any]) -> MethodShape:
    """``method``'s shape, worked out once per function (a bound method's, once per class)."""
    function = getattr(method, "__func__", method)
    try:
        return _shape_of_function(function)
    except TypeError:  # an unhashable callable: read each time
        return _shape_of_function.__wrapped__(function)


async def _drained(
    generator: AsyncIterator[AdapterResult], items: list[AdapterResult], probes: Sequence[StreamProbe]
) -> None:
    """An async generator's items, each kept as it comes (what came before an exception stays)."""
    async for item in generator:
        if probes:
            probes[0].mark_yield()
        items.append(item)


class Kind(ABC, Generic[ModelT, ContextT]):
    """One kind of case. Subclasses set the class attributes and implement ``prepare``.

    ``ModelT`` is the kind's case model, ``ContextT`` what its outcome carries besides the value (the
    ``context`` its own ``judge`` reads; ``None`` for most kinds).
    """

    name: ClassVar[str]
    """The kind's name: ``kind:`` in cases, ``<kind>:<api>`` capabilities, reports."""
    case_model: ClassVar[type[CaseBase]]
    noun: ClassVar[str]
    """What its result is called in messages (``request body``)."""
    subject: ClassVar[Subject] = "result"
    """What its expectation describes, as differences name it (a waiver's ``subject``): ``request`` for
    a request body, else ``result``."""
    method: ClassVar[AdapterMethod | None]
    """The adapter method its cases call; ``None`` for a kind that observes other calls (trace)."""
    optional_methods: ClassVar[tuple[AdapterMethod, ...]] = ()
    """Methods an adapter MAY have; the kind calls them when it does (process_async, set_tool_registry)."""
    streams_only: ClassVar[bool] = False
    """Its cases are streams of events: a ``<kind>:<api>`` capability (and a case) exists only for an
    api with a streaming call (``Api.streams``): an embeddings api has no stream capability."""
    unparsed_inputs: ClassVar[bool] = False
    """The harness itself reads no SDK object of its cases: their SDK inputs (if any) go to the runtime's
    call and nowhere else (``base.runtime_input``). For a runtime that parses recorded responses itself
    (``HarnessContext.reads_recorded``) they are the recorded responses, unparsed, and its cases need
    no SDK in the harness, not even warmed up (``runners/warm.py``)."""
    exec_protocol: ClassVar[int | None] = 1
    """The exec protocol version from which a runtime in another process (``exec:``) can serve its
    cases; ``None``: it never can."""
    exec_limits: ClassVar[str] = ""
    """Why its cases cannot cross a process, or not before ``exec_protocol`` (said to a runtime whose
    hello declares them)."""

    @property
    def label(self) -> str:
        """The method named where a verdict names what deviated (the kind itself when it has none)."""
        return self.method.name if self.method is not None else self.name

    @abstractmethod
    def prepare(self, ctx: HarnessContext, case: LoadedCase[ModelT]) -> Call[ContextT]:
        """Build the case's inputs (raising ``CaseInputError`` when they cannot be) and return the call
        that runs the adapter under the time limit."""

    def builds_request(self, raw: dict[str, Any]) -> bool:
        """Whether the runtime turns this case's agent and messages (``raw``, the case as written) into a
        provider request, so that the spec's optional concepts they use apply (``concept:<name>``,
        ``wireconf.kinds.concepts``); a processor never sees a tool's kind."""
        return False

    def expected_requests(self, raw: dict[str, Any]) -> list[Any]:
        """The request bodies this case (``raw``, as written) expects the runtime to send, for the
        provider-schema check of the expectations (``wireconf.reports.provider_schema``); none by default."""
        return []

    def unsupported(
        self, case: LoadedCase[ModelT], adapter: AdapterObject, supports: Callable[[str], bool]
    ) -> str | None:
        """Why the adapter cannot run this case although it declares ``<kind>:<api>``, or ``None``."""
        return None

    def judge(self, case: ModelT, outcome: CanonicalOutcome[ContextT], noun: str) -> list[Line]:
        """Why the case fails, ``[]`` when it passes (default: the result against ``expect``): lines of
        text and ``Difference``s, the differences as data (``wireconf.core.differences``)."""
        return judge_result(case, outcome, noun, self.subject)

    # -- bless (``wireconf bless``) -------------------------------------------------------------------

    unblessed: ClassVar[dict[str, Any]] = {}
    """Placeholders for the keys a case may leave out until it is blessed (besides ``expect``)."""

    def bless(self, case: LoadedCase[ModelT], outcome: Outcome[ContextT]) -> dict[str, Any]:
        """The expectations besides ``expect`` / ``expect_error`` that the reference's ``outcome`` gives
        the case; raises ``wireconf.core.errors.BlessError`` when the case cannot be blessed."""
        return {}

    # -- ``{$recorded: pointer}`` in an expectation ------------------------------------------------------

    def recorded_document(
        self, ctx: HarnessContext, case: LoadedCase[ModelT], where: str
    ) -> RecordedResponse:
        """The recorded response whose JSON body ``$recorded`` pointers are read from: the case's own
        non-streaming ``response``."""
        source = getattr(case.model, "response", None)
        if not isinstance(source, CassetteRef | InlineResponse):
            raise CaseInputError(
                f"{where}: only a case with a non-streaming recorded response can refer to it"
            )
        return recorded_response(ctx, case, source, stream=False)


def first_interaction_response(ctx: HarnessContext, name: str, where: str) -> RecordedResponse:
    """The response of a cassette's first interaction, which must be a JSON one (``$recorded`` in a
    case that runs over a whole cassette: it answers the first request)."""
    try:
        recorded = ctx.cassettes.interaction(name, 0).response
    except CassetteError as exc:
        raise CaseInputError(f"{where}: {exc}") from exc
    if recorded.is_event_stream:
        raise CaseInputError(
            f"{where}: interaction 0 of cassette {name} is an event stream, with no JSON body"
        )
    return recorded


def unblessable(case: LoadedCase[CaseBase], why: str) -> BlessError:
    """The error of a case ``wireconf bless`` cannot bless, and why."""
    return BlessError(f"{case.id}: not blessed, {why}")
