"""A stand-in for ``agentflow.adapters.llm.litellm_converter`` written from seed 004: a
``LiteLLMConverter`` with the documented async contract returning ``Message`` objects with the
documented blocks, that yields a partial message for every chunk (also for chunks without text).
``adapter`` runs it through ``wireconf.adapters.agentflow`` as the real package would be run.

Like agentflow 0.6.4 it takes only LiteLLM's objects: ``convert_response`` a ``ModelResponse``,
``convert_streaming_response`` a ``CustomStreamWrapper`` (or a ``ModelResponse``); anything else, an
OpenAI SDK object or a bare generator, is refused with the real converter's error."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from litellm import CustomStreamWrapper
from litellm.types.utils import ModelResponse

from wireconf.adapters.agentflow import AgentflowAdapter

UNSUPPORTED = "Unsupported response type for LiteLLMConverter"


@dataclass
class TextBlock:
    text: str
    type: str = "text"


@dataclass
class ReasoningBlock:
    summary: str
    type: str = "reasoning"


@dataclass
class ToolCallBlock:
    id: str
    name: str
    args: dict[str, Any]
    type: str = "tool_call"


@dataclass
class TokenUsages:
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    reasoning_tokens: int = 0
    cache_read_input_tokens: int = 0


@dataclass
class Message:
    role: str
    content: list[Any]
    delta: bool = False
    tools_calls: list[dict[str, Any]] | None = None
    usages: TokenUsages | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def _usages(usage: Any) -> TokenUsages | None:
    if usage is None:
        return None
    details = getattr(usage, "completion_tokens_details", None)
    cached = getattr(getattr(usage, "prompt_tokens_details", None), "cached_tokens", None)
    return TokenUsages(
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.total_tokens,
        getattr(details, "reasoning_tokens", None) or 0,
        cached or 0,
    )


def _message(
    text: str, reasoning: str, calls: list[dict[str, Any]], usage: Any, meta: dict[str, Any]
) -> Message:
    blocks: list[Any] = [ReasoningBlock(reasoning)] if reasoning else []
    blocks += [TextBlock(text)] if text else []
    blocks += [
        ToolCallBlock(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls
    ]
    return Message("assistant", blocks, False, calls, _usages(usage), meta)


class LiteLLMConverter:
    async def convert_response(self, response: Any) -> Message:
        if not isinstance(response, ModelResponse):
            raise TypeError(f"LiteLLMConverter.convert_response takes a ModelResponse, got {type(response)}")
        choice = response.choices[0]
        message = choice.message
        calls = [tc.model_dump(include={"id", "type", "function"}) for tc in message.tool_calls or []]
        meta = {"model": response.model, "object": response.object, "finish_reason": choice.finish_reason}
        return _message(
            message.content or "",
            getattr(message, "reasoning_content", None) or "",
            calls,
            response.usage,
            meta,
        )

    async def convert_streaming_response(
        self,
        config: dict[str, Any],
        node_name: str,
        response: AsyncIterator[Any],
        meta: dict[str, Any] | None = None,
    ) -> AsyncIterator[Any]:
        if isinstance(response, ModelResponse):
            yield await self.convert_response(response)
            return
        if not isinstance(response, CustomStreamWrapper):
            raise Exception(UNSUPPORTED)  # the real converter's own error
        text, reasoning, usage = "", "", None
        calls: dict[int, dict[str, Any]] = {}
        info: dict[str, Any] = {"model": None, "object": None, "finish_reason": None}
        async for chunk in response:
            info["model"], info["object"] = chunk.model, chunk.object
            usage = getattr(chunk, "usage", None) or usage
            for choice in chunk.choices[:1]:
                piece = choice.delta.content or ""
                text += piece
                info["finish_reason"] = choice.finish_reason or info["finish_reason"]
                for tc in choice.delta.tool_calls or []:
                    call = calls.setdefault(
                        tc.index,
                        {
                            "id": tc.id,
                            "type": "function",
                            "function": {"name": tc.function.name, "arguments": ""},
                        },
                    )
                    call["function"]["arguments"] += tc.function.arguments or ""
                yield Message("assistant", [TextBlock(piece)], delta=True)
        yield _message(text, reasoning, list(calls.values()), usage, info)


adapter = AgentflowAdapter(converter=LiteLLMConverter, version="fake-from-seed-004")
