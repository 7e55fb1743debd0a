"""``process``: a provider response, parsed by the official SDK → the processor's result.

When the adapter has ``process_async`` (§8: ``process_async(agent, response) → result``), the case
also awaits it, on a second SDK object parsed from the same bytes, and judges its result against the
same expectation: a runtime whose async processor drifts from its sync one fails, naming the variant.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable
from typing import Any, Literal

from harness.corpus.case import LoadedCase
from harness.corpus.model import Agent, CaseBase, Response
from harness.corpus.yaml_source import to_plain
from harness.errors import ContractError
from harness.judging.outcome import Outcome
from harness.kinds.base import ADAPTER_ERRORS, HarnessContext, raised, sdk_input
from harness.kinds.kind import AdapterMethod, Call, Kind

PROCESS_ASYNC = AdapterMethod("process_async", ("agent", "response"), sdk=("response",), awaited=True)
"""Optional: ``async def process_async(api, agent, response)``, §8's async processor. When an adapter
has it, every ``process`` case also awaits it and judges its result against the same expectation."""


class ProcessCase(CaseBase):
    """A provider response (parsed by the official SDK) → the processor's result."""

    kind: Literal["process"]
    agent: Agent
    response: Response


async def _settle(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def await_process_async(method: Any, api: str, agent: dict[str, Any], response: Any) -> Outcome[Any]:
    """``process_async``'s outcome, run to completion on a fresh event loop (this is a worker thread)."""
    try:
        awaitable = method(api, agent, response)
    except ADAPTER_ERRORS as exc:
        return raised(exc)
    if not inspect.isawaitable(awaitable):
        raise ContractError(
            f"{PROCESS_ASYNC.name} returned {type(awaitable).__name__}, not an awaitable: "
            f"declare it `async def {PROCESS_ASYNC.name}(api, agent, response)`"
        )
    try:
        return Outcome(value=asyncio.run(_settle(awaitable)))
    except ADAPTER_ERRORS as exc:
        return raised(exc)


class ProcessKind(Kind[ProcessCase, None]):
    name = "process"
    case_model = ProcessCase
    noun = "result"
    method = AdapterMethod("process", ("agent", "response"), sdk=("response",))
    optional_methods = (PROCESS_ASYNC,)

    def prepare(self, ctx: HarnessContext, case: LoadedCase[ProcessCase]) -> Call[None]:
        response, _ = sdk_input(ctx, case, case.model.response, stream=False)
        # its own object for process_async: nothing shared
        response_for_async, _ = sdk_input(ctx, case, case.model.response, stream=False)
        agent = case.raw["agent"]

        def call(adapter: Any) -> Outcome[None]:
            try:
                outcome: Outcome[None] = Outcome(value=adapter.process(case.api, to_plain(agent), response))
            except ADAPTER_ERRORS as exc:
                outcome = raised(exc)
            method = getattr(adapter, PROCESS_ASYNC.name, None)
            if method is not None:
                variant = await_process_async(method, case.api, to_plain(agent), response_for_async)
                outcome.variants.append((PROCESS_ASYNC.name, variant))
            return outcome

        return call


KIND = ProcessKind()
