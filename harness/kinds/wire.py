"""``wire``: agent + messages → the request body (``build_request``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from harness.case_model import Agent, CaseBase, Message
from harness.kinds.base import ADAPTER_ERRORS, Call, HarnessContext, Outcome, raised
from harness.yaml_source import to_plain

if TYPE_CHECKING:
    from harness.corpus import LoadedCase

NOUN = "request body"


class CaseModel(CaseBase):
    """Agent + messages → the request body."""

    kind: Literal["wire"]
    agent: Agent
    messages: list[Message] = Field(default_factory=list)


class NotARequestBody(Exception):
    """``build_request`` returned something other than a mapping."""


def prepare(ctx: HarnessContext, case: LoadedCase) -> Call:
    agent, messages = case.raw["agent"], case.raw.get("messages", [])

    def call(adapter: Any) -> Outcome:
        try:
            body = adapter.build_request(case.api, to_plain(agent), to_plain(messages))
        except ADAPTER_ERRORS as exc:
            return raised(exc)
        if not isinstance(body, Mapping):
            raise NotARequestBody(
                f"build_request returned {type(body).__name__}, not a mapping (the request body)"
            )
        return Outcome(value=body)

    return call
