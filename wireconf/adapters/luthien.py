"""``--impl luthien``: luthien-proxy's stream processor (seed 002) under the ``blocks`` contract.

luthien-proxy is a LiteLLM proxy: whatever provider answers, its ``StreamProcessor`` sees the
``ModelResponseStream`` chunks of the ``CustomStreamWrapper`` that ``litellm.acompletion`` returns. The
adapter builds exactly that from the recorded stream with LiteLLM's own conversion
(``wireconf.adapters.litellm_objects``: the OpenAI SDK's stream for OpenAI, LiteLLM's Anthropic and
Gemini parsers over those providers' bytes), then drives the processor the documented way,
``StreamProcessor(on_chunk).process(incoming, context)``, with a callback that records the
``StreamState`` it is handed at each chunk. So the Anthropic and Gemini cases judge what a luthien
policy sees behind LiteLLM, including what LiteLLM's conversion changes. The ids LiteLLM draws at random
come from a generator seeded for the call (``litellm_ids.py``), so every run gives the same states.

Point it at a checkout: ``WIRECONF_LUTHIEN_SRC=path/to/luthien-proxy/src`` (``luthien_source.py``); the
version names the commit (``0.1.0+967f2d8f``). Without the class, or without litellm, the adapter
declares nothing and says why.
"""

from __future__ import annotations

import asyncio
from typing import Any

from wireconf.adapter_contract import capability, served_kinds
from wireconf.adapters.luthien_source import find_processor
from wireconf.core.untyped import JSON, SDKObject

APIS = ("openai.chat", "anthropic.messages", "gemini.generate_content")


class _Context:
    """The StreamingContext a policy gets: what it sends is kept, terminate() is noted."""

    def __init__(self) -> None:
        self.sent: list[Any] = []
        self.terminated = False

    async def send(self, chunk: SDKObject) -> None:
        self.sent.append(chunk)

    def terminate(self) -> None:
        self.terminated = True


def _block(block: JSON) -> dict[str, Any]:
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
    adapter_modules = ("wireconf.adapters.luthien", "wireconf.adapters.luthien_source")
    """This adapter's own code (``wireconf.core.raise_site``): an exception it raises is its bug, no
    verdict."""

    def __init__(self, processor: Any = None, version: str = "test") -> None:
        """``processor``: a StreamProcessor class to judge instead of the checkout's (tests' fakes)."""
        if processor is None:
            found = find_processor()
            processor, version, self.unavailable = found.processor, found.version, found.unavailable
            if processor is not None:
                self.unavailable = _litellm_missing()
                processor = None if self.unavailable else processor
        else:
            self.unavailable = None
        self.version = version
        self._processor = processor

    def capabilities(self) -> set[str]:
        if self._processor is None:
            return set()
        return {capability(kind, api) for kind in served_kinds(self) for api in APIS}

    def stream_blocks(self, api: str, events: JSON) -> list[dict[str, Any]]:
        from wireconf.adapters.litellm_ids import seeded_ids
        from wireconf.adapters.litellm_objects import stream_wrapper

        states: list[dict[str, Any]] = []

        async def on_chunk(chunk: SDKObject, state: Any, context: Any) -> None:
            states.append(snapshot(state))
            await context.send(chunk)

        with seeded_ids():  # LiteLLM's random ids (Gemini calls' call_<uuid>) the same on every run
            incoming = stream_wrapper(api, events)
            processor = self._processor(on_chunk)
            asyncio.run(processor.process(incoming, _Context()))
        return states


def _litellm_missing() -> str | None:
    try:
        from wireconf.adapters.litellm_objects import import_litellm

        import_litellm()
    except ImportError as exc:
        return f"litellm is not importable ({exc}); pip install 'wireconf[luthien]'"
    return None
