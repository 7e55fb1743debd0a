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
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from harness.adapter_contract import PROCESS_ASYNC_METHOD
from harness.corpus.model import Agent, CaseBase, Response
from harness.corpus.yaml_source import to_plain
from harness.kinds.base import (
    ADAPTER_ERRORS,
    Call,
    CaseInputError,
    ContractError,
    HarnessContext,
    Outcome,
    raised,
    recorded_response,
    sdk_input,
)

if TYPE_CHECKING:
    from harness.corpus.loader import LoadedCase

NOUN = "result"


class CaseModel(CaseBase):
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


def await_process_async(method: Any, api: str, agent: dict[str, Any], response: Any) -> Outcome:
    """``process_async``'s outcome, run to completion on a fresh event loop (this is a worker thread)."""
    try:
        awaitable = method(api, agent, response)
    except ADAPTER_ERRORS as exc:
        return raised(exc)
    if not inspect.isawaitable(awaitable):
        raise ContractError(
            f"{PROCESS_ASYNC_METHOD} returned {type(awaitable).__name__}, not an awaitable: "
            f"declare it `async def {PROCESS_ASYNC_METHOD}(api, agent, response)`"
        )
    try:
        return Outcome(value=asyncio.run(_settle(awaitable)))
    except ADAPTER_ERRORS as exc:
        return raised(exc)


def _mapping_input(ctx: HarnessContext, case: LoadedCase) -> dict[str, Any]:
    """The response's JSON body, decoded, as a plain dict (``response_as: mapping``)."""
    recorded = recorded_response(ctx, case, stream=False)
    try:
        body = json.loads(recorded.body)
    except ValueError as exc:
        raise CaseInputError(f"the recorded response is not JSON, so it has no mapping form: {exc}") from exc
    if not isinstance(body, dict):
        raise CaseInputError("the recorded response's JSON body is not an object")
    return body


def prepare(ctx: HarnessContext, case: LoadedCase) -> Call:
    if case.model.response_as == "mapping":  # type: ignore[attr-defined]
        response: Any = _mapping_input(ctx, case)
        response_for_async: Any = _mapping_input(ctx, case)
    else:
        response, _ = sdk_input(ctx, case, stream=False)
        response_for_async, _ = sdk_input(ctx, case, stream=False)  # its own object: nothing shared
    agent = case.raw["agent"]

    def call(adapter: Any) -> Outcome:
        try:
            outcome = Outcome(value=adapter.process(case.api, to_plain(agent), response))
        except ADAPTER_ERRORS as exc:
            outcome = raised(exc)
        method = getattr(adapter, PROCESS_ASYNC_METHOD, None)
        if method is not None:
            variant = await_process_async(method, case.api, to_plain(agent), response_for_async)
            outcome.variants.append((PROCESS_ASYNC_METHOD, variant))
        return outcome

    return call
