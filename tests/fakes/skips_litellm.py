"""Adapters that hand the seed fakes the official SDK's objects instead of LiteLLM's: the translation
mistake the fakes exist to catch (tests/integration/test_seed_adapters.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.fakes.agentflow_llm import LiteLLMConverter
from tests.fakes.luthien_streaming import StreamProcessor
from wireconf.adapters.agentflow import AgentflowAdapter, message_as_data
from wireconf.adapters.luthien import LuthienAdapter, _Context, snapshot


class SdkChunksToLuthien(LuthienAdapter):
    def stream_blocks(self, api: str, events: Any) -> list[dict[str, Any]]:
        states: list[dict[str, Any]] = []

        async def on_chunk(chunk: Any, state: Any, context: Any) -> None:
            states.append(snapshot(state))

        async def incoming() -> Any:
            for event in events:
                yield event

        asyncio.run(StreamProcessor(on_chunk).process(incoming(), _Context()))
        return states


class SdkObjectsToAgentflow(AgentflowAdapter):
    def convert(self, api: str, response: Any, stream: bool) -> list[dict[str, Any]]:
        async def run() -> list[dict[str, Any]]:
            if not stream:
                return [message_as_data(await LiteLLMConverter().convert_response(response))]
            return [
                message_as_data(m)
                async for m in LiteLLMConverter().convert_streaming_response({}, "n", response)
            ]

        return asyncio.run(run())


luthien = SdkChunksToLuthien(processor=StreamProcessor, version="sdk-chunks")
agentflow = SdkObjectsToAgentflow(converter=LiteLLMConverter, version="sdk-objects")
