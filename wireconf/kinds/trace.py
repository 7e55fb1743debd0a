"""``trace`` (§7.1.8, §7.2 and §8's preamble): the OpenTelemetry spans a runtime emits, and their
``gen_ai.*`` attributes.

A trace case names the adapter ``call`` it observes: ``execute`` (the e2e call: agent + messages, the
official SDK client over the case's cassette; §7.1.8's execute span), ``process`` or
``process_async`` (a recorded response parsed by the official SDK; §8's process span). The harness
captures the spans the call finishes with the OpenTelemetry SDK (``wireconf.sdk.span_capture``) and judges
them against ``expect``, a list of spans:

- a span is judged by its ``gen_ai.*`` attributes only, exactly: a ``gen_ai.*`` attribute the
  expectation does not list fails the case, a missing or different one too; other attributes
  (``server.address``, a runtime's own keys) are ignored, and so are the attributes of the
  OpenTelemetry GenAI semantic conventions, which §7.1.8 names, beyond its table's
  (``gen_ai.response.model``, ``gen_ai.output.type``: ``conventions_beyond_the_table``; the table's
  names and its ``gen_ai.request.*`` options stay exact). Span names are not compared (the spec names
  no span); they are shown to help read a failure;
- the spans that carry ``gen_ai.*`` attributes must be exactly the expected ones with attributes, in
  the order they ended; an expected span with ``attributes: {}`` asks for a span without any (the
  process span), and spans without ``gen_ai.*`` attributes beyond those asked for are not judged;
- spans of the official SDK client the harness hands over (the anthropic SDK traces its own calls)
  are not the runtime's: they are listed in a failure, never judged.

The call's own result is not judged (its kind does that): an adapter that raises fails the case,
unless the case declares ``raises``, the exception a conforming call raises on its input (a refusal);
whether the call raises or returns, its spans are judged the same.

The trace kind has no adapter method of its own: an adapter declares ``trace:<api>`` beside the
capability of the call it traces, and a case whose call the adapter lacks is skipped with the reason.
Over ``exec:`` spans cannot cross the process: a runtime in another process cannot declare it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from wireconf.cassettes.compare import differences, show, shown, strict_equal
from wireconf.cassettes.exchange import Exchange
from wireconf.core.differences import Difference, Line
from wireconf.core.errors import CaseInputError, NotJudged
from wireconf.core.untyped import AdapterObject
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import Agent, CaseBase, ExpectedError, Message, Response, Strict
from wireconf.emulator.answers import RecordedAnswers
from wireconf.judging.canonical import canonical
from wireconf.judging.matchers import apply_matchers
from wireconf.judging.outcome import CanonicalOutcome, Outcome
from wireconf.judging.verdict import exception_matches
from wireconf.kinds import e2e, process
from wireconf.kinds.base import HarnessContext, recorded_response, recorded_uri, sdk_input
from wireconf.kinds.kind import Call, Kind, capability, unblessable
from wireconf.sdk.span_capture import GEN_AI_PREFIX, CapturedSpan, SpanCapture, TracingUnavailable

CALL_CAPABILITY = {
    e2e.KIND.label: e2e.KIND.name,
    process.KIND.label: process.KIND.name,
    process.PROCESS_ASYNC.name: process.KIND.name,
}
"""The adapter calls a trace case observes, and the kind whose capability an adapter declares for it."""


class ExpectedSpan(Strict):
    """One span: its ``gen_ai.*`` attributes, all of them (``{}``: a span that has none)."""

    attributes: dict[str, Any] = Field(
        description="The span's gen_ai.* attributes, compared exactly (lists for OpenTelemetry's arrays)"
    )

    @field_validator("attributes")
    @classmethod
    def _gen_ai_only(cls, value: dict[str, Any]) -> dict[str, Any]:
        other = [k for k in value if not k.startswith(GEN_AI_PREFIX)]
        if other:
            raise ValueError(
                f"only gen_ai.* attributes are judged; remove {', '.join(other)} (other attributes are "
                "ignored, so listing them would check nothing)"
            )
        return value


class TraceCase(CaseBase):
    """The spans one adapter call emits: ``execute`` over a cassette, or ``process`` /
    ``process_async`` of a recorded response."""

    not_input: ClassVar[frozenset[str]] = CaseBase.not_input | {"raises"}

    kind: Literal["trace"]
    call: Literal["execute", "process", "process_async"] = Field(
        description="The adapter call whose spans are judged"
    )
    agent: Agent
    messages: list[Message] | None = Field(default=None, description="execute: the messages sent")
    cassette: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$",
        description="execute: the cassette that answers the runtime's requests (cassettes/<cassette>.yaml)",
    )
    response: Response | None = Field(default=None, description="process / process_async: the response")
    raises: ExpectedError | None = Field(
        default=None,
        description="The call may raise this (a conforming one does on this input); spans judged either way",
    )
    expect: list[ExpectedSpan] = Field(
        default_factory=list, description="The spans the call finishes, judged by their gen_ai.* attributes"
    )

    @model_validator(mode="after")
    def _inputs_of_call(self) -> TraceCase:
        if self.expect_error is not None:
            raise ValueError("trace cases judge spans: a raising call declares `raises`, not expect_error")
        if self.call == "execute":
            if self.cassette is None or self.response is not None:
                raise ValueError("call: execute takes `cassette` (and `messages`), not `response`")
        elif self.response is None or self.cassette is not None or self.messages is not None:
            raise ValueError(f"call: {self.call} takes `response`, not `cassette` or `messages`")
        return self


def _check_capture() -> None:
    try:
        SpanCapture.exporter()
    except TracingUnavailable as exc:
        raise CaseInputError(f"cannot capture spans: {exc}") from exc


class Observed:
    """What a trace case saw: the finished spans and, for ``execute``, the HTTP exchange."""

    def __init__(self, spans: list[CapturedSpan], exchange: Exchange | None) -> None:
        self.spans = spans
        self.exchange = exchange


def _prepare(ctx: HarnessContext, case: LoadedCase[TraceCase]) -> Call[Observed]:
    model = case.model
    _check_capture()
    agent = to_plain(case.raw["agent"])
    method = model.call
    endpoint = None  # the case's site, for an adapter whose method asks for it (``wireconf.kinds.sites``)
    if method == "execute":
        assert model.cassette is not None
        exchange, client = e2e.open_exchange(ctx, case, model.cassette)
        messages = to_plain(case.raw.get("messages") or [])
        if ctx.sites.asks(e2e.EXECUTE):
            endpoint = e2e.exchange_site(ctx, case, exchange, messages)[0]
    else:
        assert model.response is not None
        response, _ = sdk_input(ctx, case, model.response, stream=False)
        asking = process.PROCESS if method == "process" else process.PROCESS_ASYNC
        if ctx.sites.asks(asking):
            recorded = recorded_response(ctx, case, model.response, stream=False)
            answers = RecordedAnswers(case.api, [recorded])
            endpoint = ctx.sites.open(case.api, answers, recorded_uri=recorded_uri(ctx, model.response))[0]

    def call(adapter: AdapterObject) -> Outcome[Observed]:
        exporter = SpanCapture.start()
        called: Outcome[Any]
        try:
            if method == "execute":
                called = e2e.run_execute(ctx, case, adapter, exchange, client, agent, messages, endpoint)
            elif method == "process":
                called = process.PROCESS.invoke(adapter, case.api, agent, response, endpoint=endpoint)
            else:
                called = process.PROCESS_ASYNC.invoke(adapter, case.api, agent, response, endpoint=endpoint)
        finally:
            spans = SpanCapture.collect(exporter)
        # the result is its own kind's business; only spans (and the exchange) are judged here
        return Outcome(
            raised=called.raised,
            traceback=called.traceback,
            probe=called.probe,
            context=Observed(spans, called.context if isinstance(called.context, Exchange) else None),
        )

    return call


# --- the verdict ------------------------------------------------------------------------------------


def _listing(spans: list[CapturedSpan]) -> list[str]:
    if not spans:
        return ["  the call finished no span"]
    lines = ["  spans the call finished (in end order; names are shown, not judged):"]
    for number, span in enumerate(spans, 1):
        others = f"; {len(span.other_attributes)} other attribute(s)" if span.other_attributes else ""
        error = f"; status ERROR: {span.error}" if span.error else ""
        if span.from_sdk_client:  # its attribute values (timings) differ from run to run: names only
            names = ", ".join(sorted(span.gen_ai)) or "no gen_ai.* attributes"
            own = f"the SDK client's own span ({span.scope}), not judged"
            lines.append(f"    {number}. {span.name!r}: {names} [{own}]")
            continue
        gen_ai = show(span.gen_ai) if span.gen_ai else "no gen_ai.* attributes"
        lines.append(f"    {number}. {span.name!r}: {gen_ai}{others}{error}")
    return lines


def _described(exc: BaseException) -> str:
    return f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}"


def _raised_lines(case: TraceCase, outcome: CanonicalOutcome[Observed]) -> list[Line]:
    if outcome.raised is None or (case.raises is not None and exception_matches(outcome.raised, case.raises)):
        return []
    text = f"the {case.call} call raised {_described(outcome.raised)}"
    expected = [to_plain(span.attributes) for span in case.expect if span.attributes]
    # the call was to finish and emit these spans: the rules that govern them are the ones it breaks
    raised = Difference("spans", "$", "raised", text, type(outcome.raised).__qualname__, expected=expected)
    return [
        raised,
        "  traceback (adapter frames):",
        *("    " + line for line in outcome.traceback().splitlines()),
    ]


TABLE = frozenset(
    {
        "gen_ai.operation.name",
        "gen_ai.provider.name",
        "gen_ai.request.model",
        "gen_ai.usage.input_tokens",
        "gen_ai.usage.output_tokens",
        "gen_ai.response.finish_reasons",
        "gen_ai.response.id",
    }
)
"""§7.1.8's table of the execute span's attributes, besides its "All request options: gen_ai.request.*"."""
REQUEST_OPTIONS = frozenset(
    f"gen_ai.request.{name}"
    for name in (
        "max_tokens",
        "temperature",
        "top_p",
        "top_k",
        "frequency_penalty",
        "presence_penalty",
        "stop_sequences",
        "seed",
    )
)
"""The conventions' names of the options §7.1.5 maps (7.1.8/request-option-names): the table's "All
request options", each judged as the request sent it."""


@lru_cache(maxsize=1)
def conventions_beyond_the_table() -> frozenset[str]:
    """The attributes the OpenTelemetry GenAI semantic conventions define (the registry of the
    ``opentelemetry-semantic-conventions`` package, which the OpenTelemetry SDK brings) that §7.1.8's
    table does not name, its request options aside. §7.1.8 asks for the conventions' attributes and lists
    the ones the span must carry; it forbids none of the others, so a span that carries them as the
    conventions define them is not judged on them (7.1.8/no-other-gen-ai-attributes forbids only names
    the conventions do not have: a misspelling, a wire name; an additionalProperty under its conventions'
    name, n as gen_ai.request.choice.count, is one of theirs: 7.1.8/additional-properties-not-traced).
    A name the conventions replaced (gen_ai.system by gen_ai.provider.name: its note says "Replaced by")
    is not theirs any more, and stays judged."""
    import ast
    import inspect

    from opentelemetry.semconv._incubating.attributes import gen_ai_attributes

    names, replaced = set(), set()
    body = ast.parse(inspect.getsource(gen_ai_attributes)).body
    for statement, after in zip(body, [*body[1:], None], strict=True):
        value = statement.value if isinstance(statement, ast.AnnAssign | ast.Assign) else None
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
            continue
        if not value.value.startswith(GEN_AI_PREFIX):
            continue
        names.add(value.value)
        note = after.value if isinstance(after, ast.Expr) else None  # the attribute's docstring
        if isinstance(note, ast.Constant) and "Replaced by" in str(note.value):
            replaced.add(value.value)
    return frozenset(names - replaced - TABLE - REQUEST_OPTIONS)


def _judged_attributes(span: CapturedSpan, listed: set[str]) -> dict[str, Any]:
    """The span's ``gen_ai.*`` attributes the case judges: all but the conventions' attributes beyond the
    table that no expected span lists (the spec does not judge them)."""
    free = conventions_beyond_the_table()
    return {k: v for k, v in span.gen_ai.items() if k in listed or k not in free}


def _span_lines(case: TraceCase, spans: list[CapturedSpan]) -> list[Line]:
    expected = [to_plain(span.attributes) for span in case.expect if span.attributes]
    wanted_plain = sum(1 for span in case.expect if not span.attributes)
    runtime = [span for span in spans if not span.from_sdk_client]
    listed = {str(key) for attributes in expected if isinstance(attributes, dict) for key in attributes}
    judged = [(span, _judged_attributes(span, listed)) for span in runtime]
    actual = [canonical(attributes) for _, attributes in judged if attributes]
    plain = [span for span, attributes in judged if not attributes]
    lines: list[Line] = []
    expected_resolved, actual_resolved = apply_matchers(expected, actual)
    if not strict_equal(expected_resolved, actual_resolved, case.tolerance):
        lines.append(
            f"the spans carrying gen_ai.* attributes differ from the expectation "
            f"(expected {len(expected)}, the call finished {len(actual)}):"
        )
        found = differences(expected, actual, case.tolerance, subject="spans", resolve=apply_matchers)
        lines += shown(found)
    if len(plain) < wanted_plain:
        text = (
            f"expected {wanted_plain} span(s) without gen_ai.* attributes (e.g. §8's process span); "
            f"the call finished {len(plain)}"
        )
        lines.append(Difference("spans", "$", "missing-item", text, "span without gen_ai.*"))
    return [*lines, *_listing(spans)] if lines else []


def judge(case: TraceCase, outcome: CanonicalOutcome[Observed], noun: str) -> list[Line]:
    """The exchange (execute), whether the call raised as declared, then the spans."""
    observed = outcome.context
    assert observed is not None
    lines: list[Line] = []
    exchange = observed.exchange
    if exchange is not None:
        if exchange.refused is not None:
            raise NotJudged(f"RECORDING REFUSED: {exchange.refused}")
        if not exchange.sent:
            text = "the runtime sent no request through the SDK client it was handed"
            lines.append(Difference("request", "$", "requests", text))
        for _, (first, *rest) in exchange.unmatched:
            lines += [Difference("request", "$", "requests", first), *rest]
    lines += _raised_lines(case, outcome)
    return lines + _span_lines(case, observed.spans)


class TraceKind(Kind[TraceCase, Observed]):
    name = "trace"
    case_model = TraceCase
    noun = "spans"
    method = None  # it observes the spans of another kind's call
    exec_protocol = None
    exec_limits = (
        "the runtime's spans stay in its own process, where the harness's OpenTelemetry exporter "
        "cannot see them"
    )

    def builds_request(self, raw: dict[str, Any]) -> bool:
        return raw.get("call") == e2e.KIND.label  # a traced execute builds one; a processor does not

    def prepare(self, ctx: HarnessContext, case: LoadedCase[TraceCase]) -> Call[Observed]:
        return _prepare(ctx, case)

    def unsupported(
        self, case: LoadedCase[TraceCase], adapter: AdapterObject, supports: Callable[[str], bool]
    ) -> str | None:
        """Why this adapter cannot run the case's traced call, or ``None``: the call's own capability
        (``e2e`` for execute, ``process`` for process and process_async) and, for process_async, the
        optional method itself. Checked by the item beside ``trace:<api>``."""
        call = case.model.call
        needed = capability(CALL_CAPABILITY[call], case.api)
        unsupported_by = (
            f"{capability(self.name, case.api)} not supported by {getattr(adapter, 'name', adapter)}"
        )
        if not supports(needed):
            return f"{unsupported_by} for this case: the traced {call} call needs {needed}, not declared"
        if not callable(getattr(adapter, call, None)):
            return f"{unsupported_by} for this case: the adapter has no {call}(), the call traced"
        return None

    def judge(self, case: TraceCase, outcome: CanonicalOutcome[Observed], noun: str) -> list[Line]:
        return judge(case, outcome, noun)

    def bless(self, case: LoadedCase[TraceCase], outcome: Outcome[Observed]) -> dict[str, Any]:
        # its expectation is spans, which the reference's result does not hold
        raise unblessable(case, "trace cases are written by hand (docs/tracing.md)")


KIND = TraceKind()
