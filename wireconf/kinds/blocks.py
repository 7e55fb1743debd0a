"""``blocks`` (seed 002, the stream processor): a provider stream → the StreamStates a policy callback sees.

The adapter gets the official SDK's stream object (as ``stream`` cases do) and returns one snapshot
per callback: ``{blocks, current_block, just_completed, finish_reason}``, where each block is
``{id, kind: content, content, is_complete}`` or ``{id, kind: tool_call, name, arguments, index,
is_complete}`` and ``current_block`` / ``just_completed`` are block ids (docs/seeds.md).
"""

from __future__ import annotations

from typing import Literal

from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import CaseBase, Response
from wireconf.kinds.base import HarnessContext, runtime_input
from wireconf.kinds.kind import AdapterMethod, Call, Kind

STREAM_BLOCKS = AdapterMethod("stream_blocks", ("events",), sdk=("events",), collects=True)


class BlocksCase(CaseBase):
    """A provider stream (the official SDK's stream object) → the StreamState seen at each callback."""

    kind: Literal["blocks"]
    response: Response


class BlocksKind(Kind[BlocksCase, None]):
    name = "blocks"
    unparsed_inputs = True
    streams_only = True
    case_model = BlocksCase
    noun = "list of stream states"
    method = STREAM_BLOCKS

    def prepare(self, ctx: HarnessContext, case: LoadedCase[BlocksCase]) -> Call[None]:
        events, probe = runtime_input(ctx, case, case.model.response, stream=True)
        method = STREAM_BLOCKS
        return lambda adapter: method.invoke(adapter, case.api, events, probes=[probe] if probe else [])


KIND = BlocksKind()
