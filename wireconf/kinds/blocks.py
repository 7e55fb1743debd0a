"""``blocks`` (seed 002, the stream processor): a provider stream → the StreamStates a policy callback sees.

The adapter gets the official SDK's stream object (as ``stream`` cases do) and returns one snapshot
per callback: ``{blocks, current_block, just_completed, finish_reason}``, where each block is
``{id, kind: content, content, is_complete}`` or ``{id, kind: tool_call, name, arguments, index,
is_complete}`` and ``current_block`` / ``just_completed`` are block ids (docs/seeds.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import CaseBase, Response
from wireconf.judging.outcome import Outcome
from wireconf.kinds.base import ADAPTER_ERRORS, HarnessContext, raised, sdk_input
from wireconf.kinds.kind import AdapterMethod, Call, Kind


class BlocksCase(CaseBase):
    """A provider stream (the official SDK's stream object) → the StreamState seen at each callback."""

    kind: Literal["blocks"]
    response: Response


class BlocksKind(Kind[BlocksCase, None]):
    name = "blocks"
    streams_only = True
    case_model = BlocksCase
    noun = "list of stream states"
    method = AdapterMethod("stream_blocks", ("events",), sdk=("events",))

    def prepare(self, ctx: HarnessContext, case: LoadedCase[BlocksCase]) -> Call[None]:
        events, probe = sdk_input(ctx, case, case.model.response, stream=True)

        def call(adapter: Any) -> Outcome[None]:
            try:
                states = adapter.stream_blocks(case.api, events)
                if isinstance(states, Iterator):
                    states = list(states)
            except ADAPTER_ERRORS as exc:
                return raised(exc, probe=probe)
            return Outcome(value=states)

        return call


KIND = BlocksKind()
