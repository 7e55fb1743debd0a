"""A ChatOpenAI-like chat model that refuses what ChatOpenAI refuses: a file block with a URL raises
``ValueError("OpenAI Chat Completions does not support file URLs.")`` before anything is sent, as
``langchain_openai``'s message conversion does (tests/integration/test_langchain_litellm.py checks the real
class raises the same). Everything else it sends as a Chat Completions body with httpx to its
``base_url`` (the case's endpoint, where the harness captures it), as ChatOpenAI's SDK client does."""

from __future__ import annotations

from typing import Any

import httpx

from wireconf.adapters.langchain import LangChainAdapter

ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}
REFUSAL = "OpenAI Chat Completions does not support file URLs."


def _block(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") == "file" and "url" in block:
        raise ValueError(REFUSAL)
    return block


class FakeChatOpenAI:
    def __init__(
        self,
        model: str,
        api_key: str,
        base_url: str,
        max_retries: int = 0,
        stream_usage: bool = False,
        **options: Any,
    ) -> None:
        self.model, self.options, self.base_url = model, options, base_url

    def bind_tools(self, tools: list[dict[str, Any]], **_: Any) -> FakeChatOpenAI:
        self.options["tools"] = tools
        return self

    def invoke(self, messages: list[Any]) -> None:
        written = []
        for message in messages:
            content = message.content
            if isinstance(content, list):
                content = [_block(b) for b in content]
            written.append({"role": ROLES[message.type], "content": content})
        body = {"model": self.model, "messages": written, **self.options}
        with httpx.Client() as client:
            client.post(f"{self.base_url}/chat/completions", json=body)


adapter = LangChainAdapter(classes={"openai.chat": FakeChatOpenAI})
