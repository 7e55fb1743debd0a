"""``--impl luthien``: Luthien Proxy's stream processor (``luthien_proxy.v2.streaming``, seed 002) under
the ``blocks`` contract. The package is not on PyPI; install it from its repository to run it.

The processor is driven the documented way: ``StreamProcessor(on_chunk).process(chunks, context)``,
with a callback that records a snapshot of the ``StreamState`` it is handed at each chunk. Chunks are
the OpenAI SDK's ``ChatCompletionChunk`` objects, which have the attribute layout of LiteLLM's
``ModelResponse`` chunks the processor reads (``choices[0].delta``, ``finish_reason``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import Any

from harness.adapters._optional import optional_module

HINT = "luthien-proxy is not published on PyPI; install it from its repository to run this adapter"


class _Context:
    """The StreamingContext a policy gets: what it sends is kept, terminate() is noted."""

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.terminated = False

    async def send(self, chunk: Any) -> None:
        self.sent.append(chunk)

    def terminate(self) -> None:
        self.terminated = True


def _block(block: Any) -> dict[str, Any]:
    if hasattr(block, "arguments"):
        return {
            "id": block.id,
            "kind": "tool_call",
            "name": block.name,
            "arguments": block.arguments,
            "index": block.index,
            "is_complete": block.is_complete,
        }
    return {"id": block.id, "kind": "content", "content": block.content, "is_complete": block.is_complete}


def snapshot(state: Any) -> dict[str, Any]:
    """The state a callback sees, as data (blocks copied now, since the processor mutates them)."""
    return {
        "blocks": [_block(b) for b in state.blocks],
        "current_block": None if state.current_block is None else state.current_block.id,
        "just_completed": None if state.just_completed is None else state.just_completed.id,
        "finish_reason": state.finish_reason,
    }


class LuthienAdapter:
    name = "luthien"

    def __init__(self, module: Any = None) -> None:
        if module is None:
            module, self.version, self.unavailable = optional_module(
                "luthien_proxy.v2.streaming", "luthien-proxy", HINT
            )
        else:
            self.version, self.unavailable = getattr(module, "__version__", "test"), None
        self._streaming = module

    def capabilities(self) -> set[str]:
        return set() if self._streaming is None else {"blocks:openai.chat"}

    def stream_blocks(self, api: str, events: Iterable[Any]) -> list[dict[str, Any]]:
        states: list[dict[str, Any]] = []

        async def on_chunk(chunk: Any, state: Any, context: Any) -> None:
            states.append(snapshot(state))
            await context.send(chunk)

        async def incoming() -> AsyncIterator[Any]:
            for chunk in events:
                yield chunk

        processor = self._streaming.StreamProcessor(on_chunk)
        asyncio.run(processor.process(incoming(), _Context()))
        return states
