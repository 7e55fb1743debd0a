"""A stand-in for ``luthien_proxy.v2.streaming`` written from seed 002 as it reads: the documented
types and a ``StreamProcessor`` whose loop stops at the finish reason and whose ``_update_state``
follows the completion rules with one ``just_completed`` per chunk. ``adapter`` runs it through
``harness.adapters.luthien`` exactly as the real package would be run."""

from __future__ import annotations

import types
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from harness.adapters.luthien import LuthienAdapter


@dataclass
class StreamBlock:
    id: str
    is_complete: bool = False


@dataclass
class ContentStreamBlock(StreamBlock):
    content: str = ""


@dataclass
class ToolCallStreamBlock(StreamBlock):
    name: str = ""
    arguments: str = ""
    index: int = 0


@dataclass
class StreamState:
    blocks: list[StreamBlock]
    current_block: StreamBlock | None
    just_completed: StreamBlock | None
    finish_reason: str | None


class StreamProcessor:
    def __init__(self, on_chunk_callback: Callable[..., Any]) -> None:
        self.on_chunk = on_chunk_callback
        self.state = StreamState(blocks=[], current_block=None, just_completed=None, finish_reason=None)
        self._by_index: dict[int, ToolCallStreamBlock] = {}

    async def process(self, incoming: AsyncIterator[Any], context: Any) -> None:
        async for chunk in incoming:
            self._update_state(chunk)
            await self.on_chunk(chunk, self.state, context)
            self.state.just_completed = None
            if self.state.finish_reason:
                break

    def _complete(self, block: StreamBlock | None) -> None:
        if block is not None and not block.is_complete:
            block.is_complete = True
            self.state.just_completed = block

    def _start(self, block: StreamBlock) -> None:
        self._complete(self.state.current_block)
        self.state.blocks.append(block)
        self.state.current_block = block

    def _update_state(self, chunk: Any) -> None:
        if not chunk.choices:
            return
        choice = chunk.choices[0]
        delta = choice.delta
        if delta is not None and delta.content:  # empty content is stripped
            if not isinstance(self.state.current_block, ContentStreamBlock):
                self._start(ContentStreamBlock(id="content"))
            self.state.current_block.content += delta.content  # type: ignore[union-attr]
        for tc in (delta.tool_calls if delta is not None else None) or []:
            block = self._by_index.get(tc.index)
            if block is None:
                block = ToolCallStreamBlock(id=tc.id, name=tc.function.name or "", index=tc.index)
                self._by_index[tc.index] = block
                self._start(block)
            block.arguments += tc.function.arguments or ""
        if choice.finish_reason:
            self.state.finish_reason = choice.finish_reason
            self._complete(self.state.current_block)


module = types.ModuleType("luthien_proxy.v2.streaming")
module.__dict__.update({k: v for k, v in globals().items() if k in {"StreamProcessor", "StreamState"}})
module.__version__ = "fake-from-seed-002"  # type: ignore[attr-defined]

adapter = LuthienAdapter(module=module)
