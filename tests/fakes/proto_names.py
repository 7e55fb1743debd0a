"""The reference, its Gemini bodies spelt as google-genai 3.x and LiteLLM spell some fields: by their proto
names (``system_instruction``, ``inline_data: {mime_type, data}``, ``max_output_tokens``), which the API's
proto3 JSON parser reads alike. ``both_names`` also sends ``maxOutputTokens`` beside
``max_output_tokens``: one field twice, another request."""

from __future__ import annotations

from typing import Any

from tests.fakes.base import FakeAdapter

PROTO_NAMES = {
    "systemInstruction": "system_instruction",
    "inlineData": "inline_data",
    "fileData": "file_data",
    "mimeType": "mime_type",
    "fileUri": "file_uri",
    "maxOutputTokens": "max_output_tokens",
    "stopSequences": "stop_sequences",
}
"""JSON name → proto name, for fields of the request's messages (never a schema's or a call's own keys,
which the fake leaves alone: it respells only these, where they name a Gemini field)."""


def respelt(value: Any) -> Any:
    """``value`` with the fields of ``PROTO_NAMES`` under their proto names."""
    if isinstance(value, list):
        return [respelt(item) for item in value]
    if not isinstance(value, dict):
        return value
    return {PROTO_NAMES.get(key, key): respelt(item) for key, item in value.items()}


class Adapter(FakeAdapter):
    name = "proto-names"
    both_names = False

    def build_request(self, api: str, agent: Any, messages: Any) -> Any:
        body = super().build_request(api, agent, messages)
        if api != "gemini.generate_content":
            return body
        sent = respelt(body)
        config = sent.get("generationConfig")
        if self.both_names and isinstance(config, dict) and "max_output_tokens" in config:
            config["maxOutputTokens"] = config["max_output_tokens"] + 1
        return sent


class BothNames(Adapter):
    name = "proto-and-json-names"
    both_names = True


adapter = Adapter()
both_names = BothNames()
