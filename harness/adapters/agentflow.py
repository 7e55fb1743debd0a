"""``--impl agentflow``: 10xScale Agentflow's response converter (``agentflow.adapters.llm``, seed 004)
under the ``convert`` contract (``pip install 'wireconf[agentflow]'``).

Agentflow needs Python >= 3.12. On an older interpreter the adapter loads, declares nothing and says
so; there it runs out of process, served by the Python helper from a 3.12 environment that has wireconf
and agentflow installed (``tests/test_agentflow_out_of_process.py`` proves that path with a fake)::

    pytest cases --impl "exec:/opt/py312/bin/python -m harness.exec_protocol.serve agentflow"

It calls the documented API: ``LiteLLMConverter().convert_response(response)`` and
``convert_streaming_response(config, node_name, response)``, whose ``Message`` objects it reads into
the canonical message (docs/seeds.md).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Iterable
from typing import Any

from harness.adapters._optional import optional_module

USAGE_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "reasoning_tokens",
    "cache_read_input_tokens",
)
HINT = "pip install 'wireconf[agentflow]' (agentflow needs Python >= 3.12)"


def _block(block: Any) -> dict[str, Any]:
    kind = getattr(block, "type", None)
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "reasoning":
        return {"type": "reasoning", "summary": block.summary}
    if kind == "tool_call":
        return {"type": "tool_call", "id": block.id, "name": block.name, "args": block.args}
    return block.model_dump() if hasattr(block, "model_dump") else {"type": kind}


def _tool_call(call: Any) -> dict[str, Any]:
    """``tools_calls`` holds OpenAI-shaped dicts: ``{id, type, function: {name, arguments}}``."""
    function = call.get("function") or {}
    return {"id": call.get("id"), "name": function.get("name"), "arguments": function.get("arguments")}


def _usage(usage: Any) -> dict[str, int] | None:
    if usage is None:
        return None
    fields = (
        "prompt_tokens",
        "completion_tokens",
        "total_tokens",
        "reasoning_tokens",
        "cache_read_input_tokens",
    )
    return {f: getattr(usage, f, 0) for f in fields}


def message_as_data(message: Any) -> dict[str, Any]:
    """An Agentflow ``Message`` as the canonical message: partials carry role, delta and content."""
    data: dict[str, Any] = {
        "role": message.role,
        "delta": message.delta,
        "content": [_block(b) for b in message.content],
    }
    if message.delta:
        return data
    metadata = message.metadata or {}
    data["tool_calls"] = [_tool_call(c) for c in message.tools_calls or []]
    data["usage"] = _usage(message.usages)
    data["metadata"] = {k: metadata.get(k) for k in ("model", "object", "finish_reason")}
    return data


class AgentflowAdapter:
    name = "agentflow"

    def __init__(self, module: Any = None) -> None:
        if module is None and sys.version_info < (3, 12):
            self._llm, self.version = None, "not installed"
            self.unavailable = (
                f"agentflow needs Python >= 3.12 and this is {sys.version.split()[0]}; "
                "serve it from a Python 3.12 environment: --impl 'exec:python3.12 -m "
                "harness.exec_protocol.serve agentflow'"
            )
            return
        if module is None:
            module, self.version, self.unavailable = optional_module(
                "agentflow.adapters.llm.litellm_converter", "10xscale-agentflow", HINT
            )
        else:
            self.version, self.unavailable = getattr(module, "__version__", "test"), None
        self._llm = module

    def capabilities(self) -> set[str]:
        return set() if self._llm is None else {"convert:openai.chat"}

    def convert(self, api: str, response: Any, stream: bool) -> list[dict[str, Any]]:
        converter = self._llm.LiteLLMConverter()
        if not stream:
            return [message_as_data(asyncio.run(converter.convert_response(response)))]
        return asyncio.run(self._stream(converter, response))

    @staticmethod
    async def _stream(converter: Any, chunks: Iterable[Any]) -> list[dict[str, Any]]:
        async def incoming() -> AsyncIterator[Any]:
            for chunk in chunks:
                yield chunk

        out: list[dict[str, Any]] = []
        async for item in converter.convert_streaming_response({}, "wireconf", incoming()):
            if hasattr(item, "delta") and hasattr(item, "content"):  # a Message, not an EventModel
                out.append(message_as_data(item))
        return out
