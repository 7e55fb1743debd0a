"""§7.3 image generation request building: the last user message's text → ``{model, prompt, **options}``."""

from __future__ import annotations

from typing import Any

from wireconf.reference_impl.api_type import require_api_type
from wireconf.reference_impl.options import build_options


def first_text(message: dict[str, Any]) -> Any:
    """The value of the message's first text part, or ``""`` when it has none."""
    for part in message.get("content") or []:
        if part.get("kind") == "text":
            return part.get("value")
    return ""


def last_user_prompt(messages: list[dict[str, Any]]) -> Any:
    """Only the last user message is read: when it has no text the prompt is empty, even if an earlier
    user message has text (the pseudocode stops at the last user message)."""
    for message in reversed(messages):
        if message.get("role") == "user":
            return first_text(message)
    return ""


def build_image_args(agent: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    require_api_type(agent, "image", "image generation requests")
    model = agent["model"]
    args: dict[str, Any] = {"model": model["id"], "prompt": last_user_prompt(messages)}
    args.update(build_options(model.get("options")))  # size, quality, n, stream, ... pass through
    return args
