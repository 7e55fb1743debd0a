"""``blocks`` (seed 002, the stream processor): a provider stream → the StreamStates a policy callback sees.

The adapter gets the official SDK's stream object (as ``stream`` cases do) and returns one snapshot
per callback: ``{blocks, current_block, just_completed, finish_reason}``, where each block is
``{id, kind: content, content, is_complete}`` or ``{id, kind: tool_call, name, arguments, index,
is_complete}`` and ``current_block`` / ``just_completed`` are block ids (docs/seeds.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from harness.corpus.model import CaseBase, Response
from harness.kinds.base import ADAPTER_ERRORS, Call, HarnessContext, Outcome, raised, sdk_input

if TYPE_CHECKING:
    from harness.corpus.loader import LoadedCase

NOUN = "list of stream states"


class CaseModel(CaseBase):
    """A provider stream (the official SDK's stream object) → the StreamState seen at each callback."""

    kind: Literal["blocks"]
    response: Response


def prepare(ctx: HarnessContext, case: LoadedCase) -> Call:
    events, probe = sdk_input(ctx, case, stream=True)

    def call(adapter: Any) -> Outcome:
        try:
            states = adapter.stream_blocks(case.api, events)
            if isinstance(states, Iterator):
                states = list(states)
        except ADAPTER_ERRORS as exc:
            return raised(exc, probe=probe)
        return Outcome(value=states)

    return call
