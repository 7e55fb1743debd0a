"""How a runtime that consumes LiteLLM's results is called in a reproduction: luthien-proxy's stream
processor (a ``blocks`` case) and Agentflow's LiteLLM converter (a ``convert`` case).

Both take what ``litellm.acompletion`` returns, so the script makes that call for real, against its
local server answering with the recorded response (LiteLLM's own HTTP path and parsers, as in
production: what the adapters build from the same bytes with LiteLLM's conversion,
``wireconf.adapters.litellm_objects``), and hands the result to the runtime the documented way
(``StreamProcessor(on_chunk).process(...)``, ``LiteLLMConverter().convert_response(...)`` /
``convert_streaming_response(...)``), reading what it gives as the adapters read it
(``wireconf.adapters.luthien.snapshot``, ``wireconf.adapters.agentflow.message_as_data``).

The model LiteLLM is called with is the one the recording names (as the adapters take it), and an
OpenAI stream asks for a usage chunk exactly when the recording has one (a chunk of Chat Completions'
shape with ``usage``) (``litellm_objects``' reason).
luthien-proxy is not on PyPI: its script imports the processor from a checkout (``LUTHIEN_SRC``, by
default the one the verdict judged), as ``wireconf.adapters.luthien_source`` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from wireconf.adapters.litellm_objects import PROVIDERS, UNNAMED_MODEL
from wireconf.adapters.own_clients import PLACEHOLDER_KEY
from wireconf.kinds.blocks import KIND as BLOCKS
from wireconf.kinds.convert import KIND as CONVERT
from wireconf.repro.result_templates import API_BASE
from wireconf.repro.script import Answer, Call, literal, pinned

SeedTemplate = Callable[[str, bool, Answer, str], Call]
"""``(api, stream, answer, source)`` → the call; ``source``: where the runtime's code is (luthien's
checkout), else ``""``."""

_MODEL_FIELDS = ("model", "modelVersion")


def _events(answer: Answer) -> list[dict[str, Any]]:
    """The recorded response's JSON events (an event stream's ``data:`` lines, else the body)."""
    lines = [line[5:].strip() for line in answer.body.splitlines() if line.startswith("data:")]
    out = []
    for text in lines or [answer.body]:
        try:
            event = json.loads(text)
        except ValueError:
            continue
        if isinstance(event, dict):
            out.append(event)
    return out


def _model(events: list[dict[str, Any]]) -> str | None:
    for event in events:
        message = event.get("message") if event.get("type") == "message_start" else None
        found = message.get("model") if isinstance(message, dict) else None
        found = found or next((event.get(f) for f in _MODEL_FIELDS if isinstance(event.get(f), str)), None)
        if found:
            return str(found)
    return None


def acompletion_arguments(api: str, stream: bool, answer: Answer) -> dict[str, Any]:
    """``litellm.acompletion``'s keyword arguments (``api_base`` added by the script): the recording's
    model under its provider's prefix, a one-message input, usage asked for when the recording has it."""
    events = _events(answer)
    model = _model(events) or UNNAMED_MODEL[api]
    arguments: dict[str, Any] = {
        "model": f"{PROVIDERS[api]}/{model}",
        "messages": [{"role": "user", "content": "Hi"}],
        "api_key": PLACEHOLDER_KEY,
        "num_retries": 0,
        "stream": stream,
    }
    if stream and any(e.get("usage") and "choices" in e for e in events):  # a Chat Completions usage chunk
        arguments["stream_options"] = {"include_usage": True}
    return arguments


CLOSED = '''

async def closed():
    """LiteLLM's async HTTP clients closed (else aiohttp warns of an unclosed session at exit)."""
    close = getattr(litellm, "close_litellm_async_clients", None)
    if close is not None:
        await close()
'''


def _litellm_prelude(api: str, stream: bool, answer: Answer) -> str:
    return (
        'import asyncio\nimport os\n\nos.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")\n\n'
        "import litellm\n\nlitellm.suppress_debug_info = True\n\n"
        f"ARGUMENTS = {literal(acompletion_arguments(api, stream, answer))}\n"
        f'API_BASE = "{API_BASE.get(api, "")}"\n' + CLOSED
    )


LUTHIEN_IMPORT = '''
LUTHIEN_SRC = os.environ.get("LUTHIEN_SRC", @SOURCE@)
"""luthien-proxy's ``src`` folder (a checkout of the commit named above; it is not on PyPI)."""
sys.path.insert(0, LUTHIEN_SRC)
try:
    from luthien_proxy.v2.streaming.stream_processor import StreamProcessor
except ImportError as error:  # an early commit's package __init__ imports its server stack: skip it
    missing = error.name or ""
    if not missing.startswith("luthien_proxy.") or missing.startswith("luthien_proxy.v2.streaming"):
        raise
    import importlib
    import types

    folder = os.path.join(LUTHIEN_SRC, "luthien_proxy", "v2", "streaming")
    package = types.ModuleType("luthien_proxy.v2.streaming")
    package.__path__ = [folder]
    sys.modules["luthien_proxy.v2.streaming"] = package
    StreamProcessor = importlib.import_module(
        "luthien_proxy.v2.streaming.stream_processor"
    ).StreamProcessor


class Context:
    """The StreamingContext a policy is handed: what it sends is kept."""

    def __init__(self):
        self.sent = []

    async def send(self, chunk):
        self.sent.append(chunk)

    def terminate(self):
        pass


def block(item):
    if hasattr(item, "arguments"):
        return {"id": item.id, "kind": "tool_call", "name": item.name, "arguments": item.arguments,
                "index": item.index, "is_complete": item.is_complete}
    return {"id": item.id, "kind": "content", "content": item.content, "is_complete": item.is_complete}


def snapshot(state):
    """The StreamState a policy's callback sees, as data (copied now: the processor mutates it)."""
    return {
        "blocks": [block(b) for b in state.blocks],
        "current_block": None if state.current_block is None else state.current_block.id,
        "just_completed": None if state.just_completed is None else state.just_completed.id,
        "finish_reason": state.finish_reason,
    }


async def states(base_url):
    seen = []

    async def on_chunk(chunk, state, context):
        seen.append(snapshot(state))
        await context.send(chunk)

    incoming = await litellm.acompletion(**ARGUMENTS, api_base=base_url + API_BASE)
    try:
        await StreamProcessor(on_chunk).process(incoming, Context())
    finally:
        await closed()
    return seen
'''


def luthien(api: str, stream: bool, answer: Answer, source: str) -> Call:
    """luthien-proxy's ``StreamProcessor`` over ``litellm.acompletion(..., stream=True)``; the states its
    callback is handed, one per chunk."""
    prelude = (
        _litellm_prelude(api, True, answer)
        + "\n\nimport sys\n"
        + LUTHIEN_IMPORT.replace("@SOURCE@", json.dumps(source))
    )
    return Call(pinned("litellm"), prelude, "return asyncio.run(states(base_url))")


AGENTFLOW_READ = '''
from agentflow.adapters.llm.litellm_converter import LiteLLMConverter

USAGE = ("prompt_tokens", "completion_tokens", "total_tokens", "reasoning_tokens", "cache_read_input_tokens")


def block(item):
    kind = getattr(item, "type", None)
    if kind == "text":
        return {"type": "text", "text": item.text}
    if kind == "reasoning":
        return {"type": "reasoning", "summary": item.summary}
    if kind == "tool_call":
        return {"type": "tool_call", "id": item.id, "name": item.name, "args": item.args}
    return item.model_dump() if hasattr(item, "model_dump") else {"type": kind}


def message(item):
    """An Agentflow ``Message`` as data: role, delta, content; a whole one its calls, usage, metadata."""
    data = {"role": item.role, "delta": item.delta, "content": [block(b) for b in item.content]}
    if item.delta:
        return data
    metadata = item.metadata or {}
    calls = item.tools_calls or []
    data["tool_calls"] = [
        {"id": c.get("id"), "name": (c.get("function") or {}).get("name"),
         "arguments": (c.get("function") or {}).get("arguments")} for c in calls
    ]
    data["usage"] = None if item.usages is None else {f: getattr(item.usages, f, 0) for f in USAGE}
    data["metadata"] = {k: metadata.get(k) for k in ("model", "object", "finish_reason")}
    return data


async def messages(base_url):
    converter = LiteLLMConverter()
    response = await litellm.acompletion(**ARGUMENTS, api_base=base_url + API_BASE)
    out = []
    try:
        if not ARGUMENTS["stream"]:
            return [message(await converter.convert_response(response))]
        async for item in converter.convert_streaming_response({}, "repro", response):
            if hasattr(item, "delta") and hasattr(item, "content"):  # a Message, not an event
                out.append(message(item))
    finally:
        await closed()
    return out
'''


def agentflow(api: str, stream: bool, answer: Answer, source: str) -> Call:
    """Agentflow's ``LiteLLMConverter`` on what ``litellm.acompletion`` returns: the messages it emits."""
    del source
    prelude = _litellm_prelude(api, stream, answer) + "\n" + AGENTFLOW_READ
    return Call(pinned("10xscale-agentflow", "litellm"), prelude, "return asyncio.run(messages(base_url))")


SEED_TEMPLATES: dict[str, tuple[str, SeedTemplate]] = {
    "luthien": (BLOCKS.name, luthien),
    "agentflow": (CONVERT.name, agentflow),
}
"""The runtimes that consume LiteLLM's results, by the adapter's name: the kind of case each serves, and
its template."""
