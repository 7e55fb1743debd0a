"""``--impl agentflow``: 10xScale Agentflow's LiteLLM response converter (seed 004) under the ``convert``
contract (``pip install 'wireconf[agentflow]'``: ``10xscale-agentflow[litellm]==0.6.4``, the last
release with ``LiteLLMConverter``; 0.7 moved the converters and dropped it).

The converter takes what LiteLLM returns: a ``ModelResponse``, or the ``CustomStreamWrapper`` of a
streaming call. The adapter builds those from the recorded response with LiteLLM's own conversion
(``wireconf.adapters.litellm_objects``) and calls the documented API,
``LiteLLMConverter().convert_response(response)`` and ``convert_streaming_response(config, node_name,
response)``, whose ``Message`` objects it reads into the canonical message (docs/seeds.md). The ids
LiteLLM draws at random come from a generator seeded for the call (``litellm_ids.py``), in this
process or in the one that serves agentflow over ``exec:``.

Agentflow needs Python >= 3.12. On an older interpreter the adapter loads, declares nothing and says
so; there it is served from its environment (conformance/runtimes.yaml: Python >= 3.12, its pins and
wireconf; ``python -m wireconf.envs agentflow`` makes it and prints its Python; docs/seeds.md)::

    pytest cases --impl "exec:$(python -m wireconf.envs agentflow) -m wireconf.exec_protocol.serve agentflow"
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from wireconf.adapter_contract import capability, served_kinds
from wireconf.adapters._optional import optional_module
from wireconf.core.untyped import JSON

MODULE = "agentflow.adapters.llm.litellm_converter"
ENTRY = "LiteLLMConverter"
HINT = "pip install 'wireconf[agentflow]' (10xscale-agentflow 0.6.4 with litellm; Python >= 3.12)"
USAGE_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "reasoning_tokens",
    "cache_read_input_tokens",
)


def _block(block: JSON) -> dict[str, Any]:
    kind = getattr(block, "type", None)
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "reasoning":
        return {"type": "reasoning", "summary": block.summary}
    if kind == "tool_call":
        return {"type": "tool_call", "id": block.id, "name": block.name, "args": block.args}
    return block.model_dump() if hasattr(block, "model_dump") else {"type": kind}


def _tool_call(call: JSON) -> dict[str, Any]:
    """``tools_calls`` holds OpenAI-shaped dicts: ``{id, type, function: {name, arguments}}``."""
    function = call.get("function") or {}
    return {"id": call.get("id"), "name": function.get("name"), "arguments": function.get("arguments")}


def _usage(usage: JSON) -> dict[str, int] | None:
    if usage is None:
        return None
    return {f: getattr(usage, f, 0) for f in USAGE_FIELDS}


def message_as_data(message: JSON) -> dict[str, Any]:
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


def _load() -> tuple[Any, str, str | None]:
    """``(LiteLLMConverter, version, unavailable)`` from the installed package."""
    if sys.version_info < (3, 12):
        return (
            None,
            "not installed",
            f"agentflow needs Python >= 3.12 and this is {sys.version.split()[0]}; serve it from a "
            'Python >= 3.12 environment: --impl "exec:$(python -m wireconf.envs agentflow) -m '
            'wireconf.exec_protocol.serve agentflow" (docs/seeds.md)',
        )
    from wireconf.adapters.litellm_objects import import_litellm

    try:
        import_litellm()
    except ImportError as exc:
        return None, "not installed", f"litellm is not importable ({exc}); {HINT}"
    module, version, unavailable = optional_module(MODULE, "10xscale-agentflow", HINT)
    if module is None:
        return None, version, unavailable
    converter = getattr(module, ENTRY, None)
    if converter is None:
        return None, version, f"{MODULE} has no {ENTRY} ({version}); {HINT}"
    return converter, version, None


class AgentflowAdapter:
    name = "agentflow"
    adapter_modules = (
        "wireconf.adapters.agentflow",
        "wireconf.adapters.litellm_objects",
        "wireconf.adapters.litellm_ids",
    )
    """This adapter's own code, which builds LiteLLM's objects from the case's JSON
    (``wireconf.core.raise_site``)."""

    def __init__(self, converter: Any = None, version: str = "test") -> None:
        """``converter``: a LiteLLMConverter class to judge instead of the installed one (tests' fakes)."""
        if converter is None:
            converter, version, self.unavailable = _load()
        else:
            self.unavailable = None
        self.version = version
        self._converter = converter

    def capabilities(self) -> set[str]:
        return (
            set() if self._converter is None else {capability(k, "openai.chat") for k in served_kinds(self)}
        )

    def convert(self, api: str, response: JSON, stream: bool) -> list[dict[str, Any]]:
        from wireconf.adapters import litellm_objects
        from wireconf.adapters.litellm_ids import seeded_ids

        converter = self._converter()
        with seeded_ids():  # the ids LiteLLM draws at random, the same on every run (litellm_ids.py)
            if not stream:
                model_response = litellm_objects.model_response(response)
                return [message_as_data(asyncio.run(converter.convert_response(model_response)))]
            return asyncio.run(self._stream(converter, litellm_objects.stream_wrapper(api, response)))

    @staticmethod
    async def _stream(converter: Any, wrapper: Any) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        async for item in converter.convert_streaming_response({}, "wireconf", wrapper):
            if hasattr(item, "delta") and hasattr(item, "content"):  # a Message, not an EventModel
                out.append(message_as_data(item))
        return out
