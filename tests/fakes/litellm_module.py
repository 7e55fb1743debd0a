"""A stand-in for the ``litellm`` module that refuses what LiteLLM refuses for Gemini: a message whose
role Gemini has no turn for raises ("Invalid Message passed in"), as
``litellm.llms.vertex_ai.gemini.transformation:_gemini_convert_messages_with_history`` does
(tests/integration/test_langchain_litellm.py checks the real function raises the same). Otherwise it sends
``{contents: [{role, parts: [{text}]}]}`` with httpx to its ``api_base`` (the case's endpoint, where the
harness captures it), at the path LiteLLM sends Gemini's ``generateContent`` to."""

from __future__ import annotations

import types
from typing import Any

import httpx

from wireconf.adapters.litellm import LiteLLMAdapter

TURNS = {"user": "user", "assistant": "model"}


class CustomStreamWrapper:
    """Only for the adapter's ``isinstance`` check: this stand-in never streams."""


def completion(model: str, messages: list[dict[str, Any]], api_base: str, **_: Any) -> None:
    contents = []
    for message in messages:
        if message["role"] not in TURNS:
            raise ValueError(f"Invalid Message passed in - {message}")
        contents.append({"role": TURNS[message["role"]], "parts": [{"text": message["content"]}]})
    with httpx.Client() as client:
        name = model.removeprefix("gemini/")
        client.post(f"{api_base}/models/{name}:generateContent", json={"contents": contents})


module = types.SimpleNamespace(completion=completion, CustomStreamWrapper=CustomStreamWrapper)
adapter = LiteLLMAdapter(module=module)
