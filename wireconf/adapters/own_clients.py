"""What the adapters of runtimes that build their own SDK clients (LangChain, LiteLLM, LlamaIndex) give
the runtime where a case has nothing to give: a key the clients insist on, a model and messages for a
``process`` case (which judges the response, not the request), and the agent's stream option read as
their users ask for a stream (a streaming method, not an option)."""

from __future__ import annotations

from typing import Any

PLACEHOLDER_KEY = "wireconf-placeholder-key"
"""The runtimes refuse to start without a key; the answered transport never sends it anywhere."""

DEFAULT_MODEL = {
    "openai.chat": "gpt-4o-mini",
    "openai.responses": "gpt-4o-mini",
    "anthropic.messages": "claude-sonnet-4-5",
    "gemini.generate_content": "gemini-2.5-flash",
}
"""The model of a ``process`` case whose agent names none."""

PROCESS_MESSAGES = [{"role": "user", "content": [{"kind": "text", "value": "Hi"}]}]
"""A ``process`` case has no messages, and the call needs some (the corpus's form)."""


def without_stream(agent: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
    """Whether the agent asks for a stream (``additionalProperties.stream: true``, as every e2e
    runtime reads it), and the agent without it: a user of the runtime asks by calling its streaming
    method, not with a ``stream`` option."""
    options = (agent.get("model") or {}).get("options") or {}
    extra = dict(options.get("additionalProperties") or {})
    if extra.get("stream") is not True:
        return False, agent
    del extra["stream"]
    model = {**agent["model"], "options": {**options, "additionalProperties": extra}}
    return True, {**agent, "model": model}
