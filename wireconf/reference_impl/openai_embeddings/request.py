"""§7.2 embeddings request building: the text of every message → ``{model, input}``."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.api_type import require_api_type


def message_texts(messages: list[dict[str, Any]]) -> list[Any]:
    """The values of all text parts, message by message, part by part; other parts are skipped."""
    texts: list[Any] = []
    for message in messages:
        for part in message.get("content") or []:
            if part.get("kind") == "text":
                texts.append(part.get("value"))
    return texts


def build_embedding_args(agent: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """One text is sent as a string, any other number (none included) as an array; nothing else is sent."""
    require_api_type(agent, "embedding", "embeddings requests")
    texts = message_texts(messages)
    return {"model": agent["model"]["id"], "input": texts[0] if len(texts) == 1 else texts}
