"""``process``: a provider response, parsed by the official SDK → the processor's result (or, with
``response_as: mapping``, the decoded JSON body as a plain dict).

When the adapter has ``process_async`` (§8: ``process_async(agent, response) → result``), the case
also awaits it, on a second SDK object parsed from the same bytes, and judges its result against the
same expectation: a runtime whose async processor drifts from its sync one fails, naming the variant.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import threading
from collections.abc import Awaitable
from typing import Any, Literal

from pydantic import Field

from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import Agent, CaseBase, Response
from wireconf.errors import CaseInputError, ContractError
from wireconf.judging.outcome import Outcome
from wireconf.kinds.base import ADAPTER_ERRORS, HarnessContext, raised, recorded_response, sdk_input
from wireconf.kinds.kind import AdapterMethod, Call, Kind
from wireconf.untyped import JSON
from wireconf.yaml_source import to_plain

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


async def _settle(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


_LOOPS = threading.local()
"""This thread's event loop for ``process_async``, with the process it was made in."""


def _run(awaitable: Awaitable[Any]) -> Any:
    """``awaitable`` run to completion on this thread's event loop; what it left behind (tasks, async
    generators) is cancelled and closed before the next case. ``asyncio.run`` would make and close a
    loop per case, about 0.2 ms each (a selector and its self-pipe); a loop inherited through a fork is
    never used (its epoll instance is the parent's)."""
    pid, loop = getattr(_LOOPS, "owned", (None, None))
    if loop is None or pid != os.getpid() or loop.is_closed():
        loop = asyncio.new_event_loop()
        _LOOPS.owned = (os.getpid(), loop)
    try:
        return loop.run_until_complete(_settle(awaitable))
    finally:
        left = asyncio.all_tasks(loop)
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        # callbacks still scheduled (``call_later``, ``call_soon``) would run in the next case: such a loop
        # is closed and the next case gets a new one (as does a loop whose queues cannot be seen)
        if getattr(loop, "_scheduled", True) or getattr(loop, "_ready", True):
            loop.close()


def await_process_async(method: Any, api: str, agent: dict[str, Any], response: Any) -> Outcome[Any]:
    """``process_async``'s outcome, run to completion on this thread's event loop (``_run``)."""
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
        return Outcome(value=_run(awaitable))
    except ADAPTER_ERRORS as exc:
        return raised(exc)


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
    case_model = ProcessCase
    noun = "result"
    method = PROCESS
    optional_methods = (PROCESS_ASYNC,)

    def prepare(self, ctx: HarnessContext, case: LoadedCase[ProcessCase]) -> Call[None]:
        if case.model.response_as == "mapping":
            response: JSON = _mapping_input(ctx, case)
            response_for_async: JSON = _mapping_input(ctx, case)
        else:
            response, _ = sdk_input(ctx, case, case.model.response, stream=False)
            # its own object for process_async: nothing shared
            response_for_async, _ = sdk_input(ctx, case, case.model.response, stream=False)
        agent = case.raw["agent"]

        def call(adapter: Any) -> Outcome[None]:
            outcome: Outcome[None] = PROCESS.invoke(adapter, case.api, to_plain(agent), response)
            method = getattr(adapter, PROCESS_ASYNC.name, None)
            if method is not None:
                variant = await_process_async(method, case.api, to_plain(agent), response_for_async)
                outcome.variants.append((PROCESS_ASYNC.name, variant))
            return outcome

        return call


KIND = ProcessKind()
