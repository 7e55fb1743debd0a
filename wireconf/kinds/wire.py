"""``wire``: agent + messages → the request body (``build_request``).

A runtime with a registry of custom tools (§7.1.3, kind ``*``) receives the case's ``registry`` through
the optional ``set_tool_registry(entries)`` before the call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from wireconf.core.differences import Line
from wireconf.core.errors import ContractError
from wireconf.core.untyped import JSON, AdapterObject
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.data_paths import resolve_agent_paths
from wireconf.corpus.model import Agent, CaseBase, Message, RegistryEntry
from wireconf.emulator.minimal import MinimalAnswers
from wireconf.judging.outcome import CanonicalOutcome, Outcome
from wireconf.judging.schema_check import rejections
from wireconf.judging.verdict import judge as judge_result
from wireconf.kinds.base import HarnessContext, raised
from wireconf.kinds.kind import AdapterMethod, Call, Kind
from wireconf.providers.registry import APIS

if TYPE_CHECKING:
    from wireconf.emulator.site import Site

TOOL_REGISTRY = AdapterMethod("set_tool_registry", ("entries",), takes_api=False)
"""Optional: ``set_tool_registry(entries)`` replaces the runtime's registry of custom tools (§7.1.3, kind
``*``) with ``entries`` (``{name, parameters}``, parameters a JSON Schema) before each ``wire`` call.
Required only by cases that declare a ``registry``."""


BUILD_REQUEST = AdapterMethod("build_request", ("agent", "messages"))


class WireCase(CaseBase):
    """Agent + messages → the request body."""

    kind: Literal["wire"]
    agent: Agent
    messages: list[Message] = Field(default_factory=list)
    registry: list[RegistryEntry] | None = Field(
        default=None,
        description="Entries of the runtime's tool registry for custom tools (§7.1.3, kind *), handed "
        "to the adapter's set_tool_registry before the call",
    )


class NotARequestBody(ContractError):
    """``build_request`` returned something other than a mapping."""


class WireKind(Kind[WireCase, None]):
    name = "wire"
    unparsed_inputs = True  # no SDK input
    case_model = WireCase
    noun = "request body"
    subject = "request"
    method = BUILD_REQUEST
    optional_methods = (TOOL_REGISTRY,)

    def builds_request(self, raw: dict[str, Any]) -> bool:
        return True

    def expected_requests(self, raw: dict[str, Any]) -> list[Any]:
        return [] if raw.get("expect_error") is not None else [to_plain(raw.get("expect"))]

    def judge(self, case: WireCase, outcome: CanonicalOutcome[None], noun: str) -> list[Line]:
        """The body against the expectation, then what of the body the provider's pinned contract
        rejects and the expectation does not (``wireconf.judging.schema_check``), passing or not. Both
        are read as the api's record reads a sent body (``read_sent``), whichever way the body came: an
        expectation may hold a provider's object as its user wrote it (``additionalProperties``)."""
        if outcome.raised is None:
            outcome = replace(outcome, value=read_sent(case.api, outcome.value))
        if case.expect is not None and APIS[case.api].request_body is not None:
            case = case.model_copy(update={"expect": read_sent(case.api, to_plain(case.expect))})
        lines = judge_result(case, outcome, noun, self.subject)
        if outcome.raised is None and case.expect_error is None:
            rejected = rejections(case.api, outcome.value, to_plain(case.expect))
            if rejected and not lines:
                lines = [f"the {noun} matches the expectation, but the provider's contract rejects it:"]
            lines += [d.indented() for d in rejected]
        return lines

    def prepare(self, ctx: HarnessContext, case: LoadedCase[WireCase]) -> Call[None]:
        agent, messages = case.raw["agent"], case.raw.get("messages", [])
        registry = case.raw.get("registry")
        base, method = case.path.parent, BUILD_REQUEST
        opened = None
        if ctx.sites.asks(method):
            opened = ctx.sites.open(case.api, MinimalAnswers(case.api), to_plain(messages))

        def call(adapter: AdapterObject) -> Outcome[None]:
            set_registry = getattr(adapter, TOOL_REGISTRY.name, None)
            if registry and set_registry is None:
                raise ContractError(
                    f"the case declares a tool registry but the adapter has no {TOOL_REGISTRY.name}(entries) "
                    "method to receive it (docs/adapters.md, custom tools)"
                )
            if set_registry is not None:
                given = TOOL_REGISTRY.invoke(adapter, None, to_plain(registry or []))
                if given.raised is not None:
                    return given
            outcome = method.invoke(
                adapter,
                case.api,
                resolve_agent_paths(to_plain(agent), base),
                to_plain(messages),
                endpoint=opened[0] if opened else None,
            )
            if opened is not None:
                return sent_request(case.api, opened[1], outcome)
            if outcome.raised is None and not isinstance(outcome.value, Mapping):
                raise NotARequestBody(
                    f"build_request returned {type(outcome.value).__name__}, not a mapping (the request body)"
                )
            return outcome

        return call


class NoRequestCaptured(Exception):
    """A runtime given the case's endpoint returned without sending a request to its api there: the
    runtime's outcome (judged like a raise), neither the harness's error nor a request to judge."""


def sent_request(api: str, site: Site, outcome: Outcome[None]) -> Outcome[None]:
    """The outcome of a ``build_request`` that took the endpoint: the JSON body of the first request it
    sent to the case's api, judged as a returned body is (``WireKind.judge`` reads both alike); what it
    raised when it sent none (or ``NoRequestCaptured``). It returns nothing: a returned value is a
    mistake of the adapter's."""
    if outcome.raised is None and outcome.value is not None:
        raise NotARequestBody(
            f"build_request takes the endpoint, so it returns nothing (the request it sent is judged); "
            f"it returned {type(outcome.value).__name__}"
        )
    sent = next((request for request in site.captured if request.api == api), None)
    if sent is None:
        if outcome.raised is not None:
            return outcome
        nothing = f"the runtime returned without sending a request to the {api} endpoint"
        return raised(NoRequestCaptured(nothing))
    return Outcome(value=sent.json)


def read_sent(api: str, body: JSON) -> JSON:
    """A request body as the api's record reads one (Gemini's fields under their JSON names), the same
    whether the adapter returned it or the runtime sent it to its endpoint."""
    read = APIS[api].request_body
    return read(body) if read is not None else body


KIND = WireKind()
