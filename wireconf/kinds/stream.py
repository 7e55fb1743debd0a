"""``stream``: the SDK's stream object over a recorded event stream → the items the processor yields.

Items are collected one by one, so that what was yielded before an exception is kept, and the stream
probe notes how many events the SDK had read at each yield (for ``incremental`` cases).
"""

from __future__ import annotations

from typing import ClassVar, Literal

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
from wireconf.kinds.sites import SiteProbes

PROCESS_STREAM = AdapterMethod("process_stream", ("agent", "events"), sdk=("events",), yields=True)


class StreamCase(CaseBase):
    """A provider stream (the official SDK's stream object) → the items the processor yields."""

    yields_items: ClassVar[bool] = True
    not_input: ClassVar[frozenset[str]] = CaseBase.not_input | {"incremental"}

    kind: Literal["stream"]
    agent: Agent
    response: Response
    incremental: bool = Field(
        default=False,
        description="Also check that text deltas are yielded before the last stream event is read",
    )


class StreamKind(Kind[StreamCase, None]):
    name = "stream"
    unparsed_inputs = True
    streams_only = True
    case_model = StreamCase
    noun = "yielded items"
    method = PROCESS_STREAM

    def prepare(self, ctx: HarnessContext, case: LoadedCase[StreamCase]) -> Call[None]:
        events, probe = runtime_input(ctx, case, case.model.response, stream=True)
        assert probe is not None
        agent, method, source = case.raw["agent"], PROCESS_STREAM, case.model.response
        if not ctx.sites.asks(method):
            return lambda adapter: method.invoke(adapter, case.api, to_plain(agent), events, probes=[probe])
        recorded = recorded_response(ctx, case, source, stream=True)
        # the case's own probe counts what the emulator wrote; an incremental case's last event is
        # held until the runtime has yielded (the emulator's gate), so a buffering runtime is late
        answers = RecordedAnswers(case.api, [recorded], probe=probe, hold_last=bool(case.model.incremental))
        endpoint, site = ctx.sites.open(case.api, answers, recorded_uri=recorded_uri(ctx, source))
        probes = SiteProbes(site, probe)

        def call(adapter: AdapterObject) -> Outcome[None]:
            return method.invoke(adapter, case.api, to_plain(agent), events, probes=probes, endpoint=endpoint)

        return call

    def recorded_document(self, ctx: HarnessContext, case: LoadedCase[StreamCase], where: str) -> JSON:
        raise CaseInputError(f"{where}: only a case with a non-streaming recorded response can refer to it")


KIND = StreamKind()
