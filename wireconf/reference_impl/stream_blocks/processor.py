"""The provider-neutral stream processor: per-chunk operations → the StreamStates a callback sees.

Each provider module turns one SDK chunk into a list of operations:
``("text", key, text)``, ``("tool_start", key, id, name, arguments)``, ``("args", key, fragment)``,
``("stop", key)`` and ``("finish", reason)``. ``key`` identifies a block within the stream (OpenAI's
tool-call index, Anthropic's content-block index); later fragments are matched by it, never by id.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wireconf.reference_impl.stream_blocks.state import Block, StreamState

Op = tuple[Any, ...]
CONTENT_ID = "content"


class StreamProcessor:
    def __init__(self) -> None:
        self.state = StreamState()
        self._by_key: dict[Any, Block] = {}
        self._content_blocks = 0
        self._tool_calls = 0

    def _start(self, block: Block, key: Any) -> Block | None:
        """Append a new block; the block streaming until now is complete."""
        completed = self._complete(self.state.current_block)
        self.state.blocks.append(block)
        self.state.current_block = block
        if key is not None:
            self._by_key[key] = block
        return completed

    @staticmethod
    def _complete(block: Block | None) -> Block | None:
        if block is None or block.is_complete:
            return None
        block.is_complete = True
        return block

    def apply(self, op: Op) -> Block | None:
        """Apply one operation; returns the block it completed, if any."""
        kind = op[0]
        if kind == "text":
            _, key, text = op
            if not text:
                return None  # empty content is no content: it starts nothing and completes nothing
            current = self.state.current_block
            target = self._by_key.get(key) if key is not None else None
            if (
                target is None
                and current is not None
                and current.kind == "content"
                and not current.is_complete
            ):
                target = current
            if target is not None:
                target.content += text
                return None
            block_id = CONTENT_ID if self._content_blocks == 0 else f"{CONTENT_ID}-{self._content_blocks}"
            self._content_blocks += 1
            return self._start(Block(id=block_id, kind="content", content=text), key)
        if kind == "tool_start":
            _, key, call_id, name, arguments = op
            block = self._by_key.get(key)
            if block is not None:
                block.arguments += arguments or ""
                return None
            index = self._tool_calls
            self._tool_calls += 1
            block = Block(
                id=call_id or f"{name}_{index}",
                kind="tool_call",
                name=name or "",
                arguments=arguments or "",
                index=index,
            )
            return self._start(block, key)
        if kind == "args":
            _, key, fragment = op
            block = self._by_key.get(key)
            if block is not None and block.kind == "tool_call":
                block.arguments += fragment or ""
            return None
        if kind == "stop":
            return self._complete(self._by_key.get(op[1]))
        if kind == "finish":
            if self.state.finish_reason is None:
                self.state.finish_reason = op[1]
            return self._complete(self.state.current_block)
        raise ValueError(f"unknown stream operation {op!r}")

    def chunk(self, ops: Iterable[Op]) -> list[dict[str, Any]]:
        """The states the callback sees for one chunk: one, or one per completion when a chunk
        completes several blocks (the chunk is delivered in parts, each completing one block)."""
        states: list[dict[str, Any]] = []
        pending: Block | None = None
        for op in ops:
            before = None
            if pending is not None:
                self.state.just_completed = pending
                before = self.state.snapshot()
            completed = self.apply(op)
            if completed is not None:
                if before is not None:
                    states.append(before)
                pending = completed
        self.state.just_completed = pending
        states.append(self.state.snapshot())
        self.state.just_completed = None
        return states


def run(chunks: Iterable[Any], ops_of: Any) -> list[dict[str, Any]]:
    """Process a whole stream: every chunk is seen by the callback, including those after the finish
    reason (the usage chunk), so a proxy forwards them."""
    processor = StreamProcessor()
    states: list[dict[str, Any]] = []
    for chunk in chunks:
        states.extend(processor.chunk(ops_of(chunk, processor)))
    return states
