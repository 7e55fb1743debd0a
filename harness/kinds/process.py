"""``process``: a provider response, parsed by the official SDK → the processor's result."""

from __future__ import annotations

from typing import Any

from harness.corpus import LoadedCase
from harness.kinds.base import (
    ADAPTER_ERRORS,
    Call,
    CaseInputError,
    HarnessContext,
    Outcome,
    raised,
    recorded_response,
)
from harness.yaml_source import to_plain

NOUN = "result"


def prepare(ctx: HarnessContext, case: LoadedCase) -> Call:
    recorded = recorded_response(ctx, case, stream=False)
    try:
        response = ctx.replay.response_object(case.api, recorded)
    except Exception as exc:
        raise CaseInputError(f"the SDK could not parse the response: {exc!r}") from exc
    agent = case.raw["agent"]

    def call(adapter: Any) -> Outcome:
        try:
            return Outcome(value=adapter.process(case.api, to_plain(agent), response))
        except ADAPTER_ERRORS as exc:
            return raised(exc)

    return call
