"""A stand-in for luthien-proxy's ``StreamProcessor`` written from seed 002 as it reads: the documented
types and a processor whose loop stops at the finish reason and whose ``_update_state`` follows the
completion rules with one ``just_completed`` per chunk. ``adapter`` runs it through
``wireconf.adapters.luthien`` exactly as the real processor is run.

Like the real one it takes what a LiteLLM proxy hands it, and refuses anything else: ``incoming`` is an
async iterator (``litellm.acompletion``'s ``CustomStreamWrapper``) and every chunk is LiteLLM's
``ModelResponseStream``; an OpenAI SDK chunk or a plain iterator is a ``TypeError``, so an adapter
that skips LiteLLM's conversion fails the harness's own tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from litellm.types.utils import ModelResponseStream

from wireconf.adapters.luthien import LuthienAdapter


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
        if not hasattr(incoming, "__aiter__"):
            raise TypeError(f"StreamProcessor.process needs an async iterator, got {type(incoming).__name__}")
        async for chunk in incoming:
            if not isinstance(chunk, ModelResponseStream):
                raise TypeError(
                    f"a LiteLLM proxy hands ModelResponseStream chunks, got {type(chunk).__name__}"
                )
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


adapter = LuthienAdapter(processor=StreamProcessor, version="fake-from-seed-002")
