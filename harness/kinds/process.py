"""``process``: a provider response, parsed by the official SDK → the processor's result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from harness.case_model import Agent, CaseBase, Response
from harness.kinds.base import ADAPTER_ERRORS, Call, HarnessContext, Outcome, raised, sdk_input
from harness.yaml_source import to_plain

if TYPE_CHECKING:
    from harness.corpus import LoadedCase

NOUN = "result"


class CaseModel(CaseBase):
    """A provider response (parsed by the official SDK) → the processor's result."""

    kind: Literal["process"]
    agent: Agent
    response: Response


def prepare(ctx: HarnessContext, case: LoadedCase) -> Call:
    response, _ = sdk_input(ctx, case, stream=False)
    agent = case.raw["agent"]

    def call(adapter: Any) -> Outcome:
        try:
            return Outcome(value=adapter.process(case.api, to_plain(agent), response))
        except ADAPTER_ERRORS as exc:
            return raised(exc)

    return call
