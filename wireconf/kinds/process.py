"""``process``: a provider response, parsed by the official SDK → the processor's result (or, with
``response_as: mapping``, the decoded JSON body as a plain dict).

When the adapter has ``process_async`` (§8: ``process_async(agent, response) → result``), the case
also awaits it, on a second SDK object parsed from the same bytes, and judges its result against the
same expectation: a runtime whose async processor drifts from its sync one fails, naming the variant.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field

from wireconf.core.errors import CaseInputError
from wireconf.core.untyped import JSON, AdapterObject
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import Agent, CaseBase, Response
from wireconf.emulator.answers import RecordedAnswers
from wireconf.judging.outcome import Outcome
from wireconf.kinds.base import HarnessContext, recorded_response, recorded_uri, runtime_input
from wireconf.kinds.kind import AdapterMethod, Call, Kind

PROCESS_ASYNC = AdapterMethod("process_async", ("agent", "response"), sdk=("response",), awaited=True)
"""Optional: ``async def process_async(api, agent, response)``, §8's async processor. When an adapter
has it, every ``process`` case also awaits it and judges its result against the same expectation."""


PROCESS = AdapterMethod("process", ("agent", "response"), sdk=("response",))
"""``process(api, agent, response)``: the processor of a provider response (also called by ``trace``)."""


class ProcessCase(CaseBase):
    """A provider response (parsed by the official SDK) → the processor's result."""

    kind: Literal["process"]
    agent: Agent
    response: Response
    response_as: Literal["sdk", "mapping"] = Field(
        default="sdk",
        description="sdk (the default): the official SDK's object for the response. mapping: the decoded "
        "JSON body as a plain dict, as a runtime that calls the HTTP API itself (or gets a provider dict) "
        "has it",
    )


def _mapping_input(ctx: HarnessContext, case: LoadedCase[ProcessCase]) -> dict[str, Any]:
    """The response's JSON body, decoded, as a plain dict (``response_as: mapping``)."""
    recorded = recorded_response(ctx, case, case.model.response, stream=False)
    try:
        body = json.loads(recorded.body)
    except ValueError as exc:
        raise CaseInputError(f"the recorded response is not JSON, so it has no mapping form: {exc}") from exc
    if not isinstance(body, dict):
        raise CaseInputError("the recorded response's JSON body is not an object")
    return body


class ProcessKind(Kind[ProcessCase, None]):
    name = "process"
    unparsed_inputs = True
    case_model = ProcessCase
    noun = "result"
    method = PROCESS
    optional_methods = (PROCESS_ASYNC,)

    def prepare(self, ctx: HarnessContext, case: LoadedCase[ProcessCase]) -> Call[None]:
        if case.model.response_as == "mapping":
            response: JSON = _mapping_input(ctx, case)
            response_for_async: JSON = _mapping_input(ctx, case)
        else:
            response, _ = runtime_input(ctx, case, case.model.response, stream=False)
            # its own object for process_async: nothing shared
            response_for_async, _ = runtime_input(ctx, case, case.model.response, stream=False)
        agent = case.raw["agent"]
        # for an adapter that asks for the endpoint: the recorded bytes served at a site of their own for
        # each call (process_async's too), where the runtime's own HTTP path reads them
        source, api, sites = case.model.response, case.api, ctx.sites
        opened = opened_async = None
        if sites.asks(PROCESS) or sites.asks(PROCESS_ASYNC):
            recorded, uri = recorded_response(ctx, case, source, stream=False), recorded_uri(ctx, source)
            if sites.asks(PROCESS):
                opened = sites.open(api, RecordedAnswers(api, [recorded]), recorded_uri=uri)
            if sites.asks(PROCESS_ASYNC):
                opened_async = sites.open(api, RecordedAnswers(api, [recorded]), recorded_uri=uri)

        def call(adapter: AdapterObject) -> Outcome[None]:
            outcome: Outcome[None] = PROCESS.invoke(
                adapter, api, to_plain(agent), response, endpoint=opened[0] if opened else None
            )
            if getattr(adapter, PROCESS_ASYNC.name, None) is not None:
                endpoint = opened_async[0] if opened_async else None
                variant = PROCESS_ASYNC.invoke(
                    adapter, api, to_plain(agent), response_for_async, endpoint=endpoint
                )
                outcome.variants.append((PROCESS_ASYNC.name, variant))
            return outcome

        return call


KIND = ProcessKind()
