"""``e2e``: agent + messages → the HTTP request the runtime sends through the official SDK client the
harness hands it → the recorded response → the runtime's result.

The adapter's ``execute(api, agent, messages, client)`` receives a new SDK client (``openai.OpenAI``,
``anthropic.Anthropic`` or ``google.genai.Client``) whose transport captures every request and answers
it from the case's cassette (``wireconf.sdk.cassette_transport``); an ``execute(api, agent, messages,
*, endpoint)`` that leaves ``client`` out gets the case's endpoint alone, answered by the same
exchange, and no client is built for it (``takes_client``). The case checks two things, each
exactly and with a diff: the JSON body of the request the runtime really sent (``expect_request``;
a list when it sends several; Gemini's fields read under their JSON names, the api record's ``request_body``)
and its result (``expect`` or ``expect_error``). A result that is an
iterator (a streaming runtime's generator) is drained item by item, as a ``stream`` case does, so
``incremental: true`` works here too (a list returned for a streamed response counts as buffered),
over an endpoint as well: the emulator holds the first event stream's last event for the yields.

A request that matches no recorded interaction fails the case with the nearest recorded request and
the body diff; a missing cassette is an error that says so. In record mode (``--record-mode``) the
same client reaches the real provider and the exchange is written as a cassette (scrubbed, scanned,
atomically) when the call ends, whatever its outcome.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from wireconf.cassettes.compare import differences, shown, strict_equal
from wireconf.cassettes.exchange import Exchange
from wireconf.cassettes.store import Cassette, CassetteError, RecordedResponse
from wireconf.core.differences import Difference, Line
from wireconf.core.errors import CaseInputError, NotJudged
from wireconf.core.untyped import JSON, AdapterObject, SDKObject
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import Agent, CaseBase, Message
from wireconf.emulator.recording import e2e_responder
from wireconf.judging.matchers import apply_matchers
from wireconf.judging.outcome import CanonicalOutcome, Outcome
from wireconf.judging.schema_check import rejections
from wireconf.judging.verdict import judge as judge_result
from wireconf.kinds.base import HarnessContext
from wireconf.kinds.kind import AdapterMethod, Call, Kind, first_interaction_response, unblessable
from wireconf.providers.registry import APIS, PROVIDER_OF
from wireconf.sdk.replay import e2e_client, warm_up

if TYPE_CHECKING:
    from wireconf.emulator.routes import Endpoint
    from wireconf.emulator.site import Site

EXECUTE = AdapterMethod("execute", ("agent", "messages", "client"), http_client="client", may_stream=True)


class E2eCase(CaseBase):
    """Agent + messages → the request sent through the official SDK and the result of its response."""

    not_input: ClassVar[frozenset[str]] = CaseBase.not_input | {"expect_request", "incremental"}

    kind: Literal["e2e"]
    agent: Agent
    messages: list[Message] = Field(default_factory=list)
    cassette: str = Field(
        pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$",
        description="The cassette that answers the runtime's requests: cassettes/<cassette>.yaml",
    )
    expect_request: JSON = Field(
        description="The JSON body of the request the runtime sends through the SDK, compared exactly "
        "(a list of bodies when it sends several requests)",
    )
    incremental: bool = Field(
        default=False,
        description="Also check that text items are yielded before the last stream event is read",
    )


def _load(ctx: HarnessContext, name: str) -> tuple[Cassette | None, bool]:
    """The cassette (``None`` when it does not exist yet) and whether wireconf may record into it."""
    try:
        if not ctx.cassettes.path_of(name).exists():
            return None, True
        cassette = ctx.cassettes.load(name)
    except CassetteError as exc:
        raise CaseInputError(str(exc)) from exc
    writable = cassette.meta is not None and cassette.meta.provenance == "recorded"
    return cassette, writable


@cache
def _positional_room(function: Callable[..., Any]) -> int:
    """How many positional arguments ``function`` takes (a large number for ``*args``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # no signature to read: it may take anything
        return 1 << 16
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return 1 << 16
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(p.kind in positional for p in parameters)


def takes_client(adapter: AdapterObject) -> bool:
    """Whether ``adapter``'s ``execute`` is handed the in-process SDK client: unless it declares
    ``endpoint`` and has no place for the client (``execute(self, api, agent, messages, *, endpoint)``),
    a method that reads the case over HTTP only; an ``execute`` that still names ``client`` beside
    ``endpoint``, as adapters did before, gets it. Building the client costs an e2e case a new SDK
    client; nothing asks for it then."""
    method = getattr(adapter, EXECUTE.name, None)
    if method is None or not EXECUTE.takes_endpoint(adapter):
        return True
    function = getattr(method, "__func__", method)
    bound = 1 if function is not method else 0  # ``self``, given by the bound method
    try:
        room = _positional_room(function)
    except TypeError:  # an unhashable callable: read each time
        room = _positional_room.__wrapped__(function)
    return room - bound > len(EXECUTE.params)


def open_exchange(ctx: HarnessContext, case: LoadedCase[CaseBase], name: str) -> tuple[Exchange, SDKObject]:
    """The case's exchange over cassette ``name`` and the SDK client that talks through it, ``None``
    where the adapter's ``execute`` takes the endpoint and no client (``takes_client``) (skips when
    the record policy says so; a missing cassette in replay mode is a ``CaseInputError``)."""
    provider = PROVIDER_OF[case.api]
    policy = ctx.recording
    cassette, writable = _load(ctx, name)
    exists = cassette is not None
    reason = policy.skip_reason(provider.name, exists, writable)
    if reason is not None:
        import pytest  # here: a runtime's exec helper imports the kinds before its hello, never pytest

        pytest.skip(reason)
    mode = policy.effective_mode(exists, writable)
    path = ctx.cassettes.path_of(name)
    if cassette is None and mode == "none":
        keys = " or ".join(provider.key_variables)
        raise CaseInputError(
            f"cassette {name} not found: {path} does not exist "
            f"(record it with --record-mode=once and {keys} set)"
        )
    problem = cassette.problem() if cassette is not None else None
    if problem is not None:
        raise CaseInputError(problem)
    warm_up(case.api)
    exchange = Exchange(name, path, cassette, mode, case.api, provider.name, policy.environ)
    exchange.on_written = ctx.on_written
    ctx.opened.append(exchange)
    if ctx.sites.asks(EXECUTE) and not takes_client(ctx.sites.adapter):
        return exchange, None
    return exchange, e2e_client(case.api, exchange)


def exchange_site(
    ctx: HarnessContext, case: LoadedCase[CaseBase], exchange: Exchange, messages: JSON
) -> tuple[Endpoint, Site]:
    """A site of the case answered by its exchange: the same exchange answers the SDK client and the
    site, one record of what was sent (the api's version read from the cassette's first request). An
    ``incremental`` case's first event stream is held back for the runtime's yields (the emulator's
    hold-last-event gate, as a ``stream`` case's): over HTTP the harness knows only what it wrote."""
    recorded = exchange.cassette.interactions if exchange.cassette is not None else ()
    first = recorded[0].request.uri if recorded else None
    incremental = getattr(case.model, "incremental", False) is True
    responder = e2e_responder(exchange, hold_last=incremental)
    return ctx.sites.open(case.api, responder, messages, recorded_uri=first)


def run_execute(
    ctx: HarnessContext,
    case: LoadedCase[CaseBase],
    adapter: AdapterObject,
    exchange: Exchange,
    client: SDKObject,
    agent: dict[str, Any],
    messages: list[dict[str, Any]],
    endpoint: Endpoint | None = None,
) -> Outcome[Exchange]:
    """``adapter.execute`` through ``client`` (and ``endpoint``, a site answered by the same exchange,
    for an adapter that asks for it; ``client`` is ``None``, and left out of the call, for one that
    takes the endpoint alone), a returned iterator drained item by item; the exchange is finished
    (recorded cassettes written) whatever happens."""
    given = (agent, messages) if client is None else (agent, messages, client)
    try:
        outcome: Outcome[Exchange] = EXECUTE.invoke(
            adapter, case.api, *given, probes=exchange.probes, endpoint=endpoint
        )
    finally:
        exchange.finish(case.id, _label(adapter))
        if exchange.written is not None:
            ctx.cassettes.forget(exchange.name)
    outcome.probe = exchange.probes[0] if exchange.probes else None
    outcome.context = exchange
    return outcome


def _label(adapter: AdapterObject) -> str:
    return f"{getattr(adapter, 'name', type(adapter).__name__)} {getattr(adapter, 'version', '')}".strip()


# --- the verdict ------------------------------------------------------------------------------------


def _requests(text: str, expected: JSON = None) -> Difference:
    """A difference in the requests sent; ``expected``: the request the case expects, where none was
    sent (charged, as a raise is, to the rules that require it: ``judging.attribution``)."""
    return Difference("request", "$", "requests", text, expected=expected)


def _request_lines(expected: JSON, exchange: Exchange) -> list[Line]:
    read = APIS[exchange.api].request_body or (lambda body: body)
    bodies = [read(sent.json) for sent in exchange.sent]
    several = isinstance(expected, list)
    actual = bodies if several else (bodies[0] if len(bodies) == 1 else bodies)
    if not several and len(bodies) != 1:
        return [_requests(f"the case expects one request through the SDK; the runtime sent {len(bodies)}")]
    expected_resolved, actual_resolved = apply_matchers(expected, actual)
    pairs = zip(expected, actual, strict=False) if several else [(expected, actual)]
    rejected = [d.indented() for e, a in pairs for d in rejections(exchange.api, a, e)]
    if strict_equal(expected_resolved, actual_resolved):
        head = (
            "the request body sent through the SDK matches the expectation, but the provider's contract "
            "rejects it:"
        )
        return [head, *rejected] if rejected else []
    diff = differences(expected, actual, subject="request", resolve=apply_matchers)
    head = "the request body sent through the SDK differs from the expectation:"
    return [head, *shown(diff), *rejected]


def judge(case: E2eCase, outcome: CanonicalOutcome[Exchange], noun: str) -> list[Line]:
    """The refused recording, the exchange, the request body, then the result."""
    exchange = outcome.context
    assert exchange is not None
    if exchange.refused is not None:
        raise NotJudged(f"RECORDING REFUSED: {exchange.refused}")
    lines: list[Line] = []
    if not exchange.sent:
        lines.append(
            _requests(
                "the runtime sent no request through the SDK client it was handed "
                "(an e2e runtime must call the provider through that client)",
                to_plain(case.expect_request),
            )
        )
    for _, (first, *rest) in exchange.unmatched:
        lines += [_requests(first), *rest]
    if exchange.sent:
        lines += _request_lines(to_plain(case.expect_request), exchange)
    if not exchange.sent and not exchange.unmatched:
        # nothing reached the provider: what the runtime did instead (raised, returned) is its result,
        # judged as one (a ValueError of its own where the provider's 404 is expected: a wrong error)
        return lines + judge_result(case, outcome, noun)
    if exchange.unmatched:
        if outcome.raised is not None:
            raised = f"{type(outcome.raised).__name__}: {outcome.raised}"
            lines.append(f"(the result is not judged: the runtime raised {raised:.400})")
        return lines
    return lines + judge_result(case, outcome, noun)


class E2eKind(Kind[E2eCase, Exchange]):
    name = "e2e"
    case_model = E2eCase
    noun = "result"
    method = EXECUTE
    exec_protocol = 2
    exec_limits = (
        "the SDK client stays in the harness; from protocol 2 the runtime's own SDK sends its requests "
        "through it with `http` messages"
    )
    unblessed: ClassVar[dict[str, Any]] = {"expect_request": None}

    def builds_request(self, raw: dict[str, Any]) -> bool:
        return True

    def expected_requests(self, raw: dict[str, Any]) -> list[Any]:
        expected = to_plain(raw.get("expect_request"))
        return [] if expected is None else expected if isinstance(expected, list) else [expected]

    def prepare(self, ctx: HarnessContext, case: LoadedCase[E2eCase]) -> Call[Exchange]:
        exchange, client = open_exchange(ctx, case, case.model.cassette)
        agent, messages = to_plain(case.raw["agent"]), to_plain(case.raw.get("messages", []))
        if not ctx.sites.asks(EXECUTE):
            return lambda adapter: run_execute(ctx, case, adapter, exchange, client, agent, messages)
        endpoint, _ = exchange_site(ctx, case, exchange, messages)
        return lambda adapter: run_execute(ctx, case, adapter, exchange, client, agent, messages, endpoint)

    def judge(self, case: E2eCase, outcome: CanonicalOutcome[Exchange], noun: str) -> list[Line]:
        return judge(case, outcome, noun)

    def bless(self, case: LoadedCase[E2eCase], outcome: Outcome[Exchange]) -> dict[str, Any]:
        """The request bodies the reference sent (``expect_request``); a case whose requests did not
        all match, or whose recording was refused, is not blessed."""
        exchange = outcome.context
        assert exchange is not None
        if exchange.refused is not None or exchange.unmatched or not exchange.sent:
            why = "its recording was refused" if exchange.refused else "its requests did not all match"
            raise unblessable(case, why)
        bodies = [sent.json for sent in exchange.sent]
        return {"expect_request": bodies[0] if len(bodies) == 1 else bodies}

    def recorded_document(
        self, ctx: HarnessContext, case: LoadedCase[E2eCase], where: str
    ) -> RecordedResponse:
        """An e2e case points into the response of its cassette's first interaction (the one that
        answers its first request), which must be a non-streaming one."""
        return first_interaction_response(ctx, case.model.cassette, where)


KIND = E2eKind()
