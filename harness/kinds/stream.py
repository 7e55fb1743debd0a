"""``stream``: the SDK's stream object over a recorded event stream → the items the processor yields.

Items are collected one by one, so that what was yielded before an exception is kept, and the stream
probe notes how many events the SDK had read at each yield (for ``incremental`` cases).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from harness.corpus.model import Agent, CaseBase, Response
from harness.corpus.yaml_source import to_plain
from harness.kinds.base import ADAPTER_ERRORS, Call, HarnessContext, Outcome, raised, sdk_input

if TYPE_CHECKING:
    from harness.corpus.loader import LoadedCase

NOUN = "yielded items"


class CaseModel(CaseBase):
    """A provider stream (the official SDK's stream object) → the items the processor yields."""

    kind: Literal["stream"]
    agent: Agent
    response: Response
    incremental: bool = Field(
        default=False,
        description="Also check that text deltas are yielded before the last stream event is read",
    )


def prepare(ctx: HarnessContext, case: LoadedCase) -> Call:
    events, probe = sdk_input(ctx, case, stream=True)
    assert probe is not None
    agent = case.raw["agent"]

    def call(adapter: Any) -> Outcome:
        items: list[Any] = []
        try:
            for item in adapter.process_stream(case.api, to_plain(agent), events):
                probe.mark_yield()
                items.append(item)
        except ADAPTER_ERRORS as exc:
            return raised(exc, yielded=items, probe=probe)
        return Outcome(value=items, yielded=items, probe=probe)

    return call
