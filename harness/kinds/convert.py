"""``convert`` (seed 004, the response converter): a response or stream → normalised messages.

The adapter gets the official SDK's response object (``stream: false``) or its stream object
(``stream: true``) and returns the messages the converter emits: one consolidated message for a
response; for a stream, the partial messages (``delta: true``) and then one consolidated message
(``delta: false``). Message shape: docs/seeds.md.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from harness.corpus.model import CaseBase, Response
from harness.kinds.base import ADAPTER_ERRORS, Call, HarnessContext, Outcome, raised, sdk_input

if TYPE_CHECKING:
    from harness.corpus.loader import LoadedCase

NOUN = "list of messages"


class CaseModel(CaseBase):
    """A provider response or stream (official SDK objects) → the converter's messages."""

    kind: Literal["convert"]
    response: Response
    stream: bool = Field(default=False, description="The response is an event stream (the SDK's stream)")


def prepare(ctx: HarnessContext, case: LoadedCase) -> Call:
    stream = bool(case.model.stream)  # type: ignore[attr-defined]
    response, probe = sdk_input(ctx, case, stream=stream)

    def call(adapter: Any) -> Outcome:
        try:
            messages = adapter.convert(case.api, response, stream)
            if isinstance(messages, Iterator):
                messages = list(messages)
        except ADAPTER_ERRORS as exc:
            return raised(exc, probe=probe)
        return Outcome(value=messages)

    return call
