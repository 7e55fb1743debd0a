"""§7.1.8's response attributes: gen_ai.response.id, gen_ai.response.finish_reasons and
gen_ai.usage.input_tokens / output_tokens, read from the official SDK's objects.

Each is set only when the response has it: a response without usage gives no token attributes, not
0 (7.1.8/usage-absent-not-zero). Finish reasons are the provider's own values, one per choice or
candidate (7.1.8/finish-reasons, 7.1.8/finish-reasons-other-apis). A stream is read as it passes:
``StreamFacts.watch`` yields every event on unchanged and keeps what the span needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


def _enum_value(value: Any) -> Any:
    return getattr(value, "value", value)


def _set(attributes: dict[str, Any], key: str, value: Any) -> None:
    if value is not None:
        attributes[key] = value


def _usage(attributes: dict[str, Any], usage: Any, input_name: str, output_name: str | None) -> None:
    if usage is None:
        return
    _set(attributes, "gen_ai.usage.input_tokens", getattr(usage, input_name, None))
    if output_name is not None:
        _set(attributes, "gen_ai.usage.output_tokens", getattr(usage, output_name, None))


def _reasons(values: Iterable[Any]) -> list[str] | None:
    reasons = [str(_enum_value(v)) for v in values if v is not None]
    return reasons or None


def chat(response: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    _set(attributes, "gen_ai.response.id", response.id)
    _set(attributes, "gen_ai.response.finish_reasons", _reasons(c.finish_reason for c in response.choices))
    _usage(attributes, response.usage, "prompt_tokens", "completion_tokens")
    return attributes


def embeddings(response: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    _usage(attributes, getattr(response, "usage", None), "prompt_tokens", None)
    return attributes


def images(response: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    _usage(attributes, getattr(response, "usage", None), "input_tokens", "output_tokens")
    return attributes


def responses(response: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    _set(attributes, "gen_ai.response.id", response.id)
    _set(attributes, "gen_ai.response.finish_reasons", _reasons([response.status]))
    _usage(attributes, response.usage, "input_tokens", "output_tokens")
    return attributes


def anthropic(response: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    _set(attributes, "gen_ai.response.id", response.id)
    _set(attributes, "gen_ai.response.finish_reasons", _reasons([response.stop_reason]))
    _usage(attributes, response.usage, "input_tokens", "output_tokens")
    return attributes


def gemini(response: Any) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    _set(attributes, "gen_ai.response.id", response.response_id)
    candidates = response.candidates or []
    _set(attributes, "gen_ai.response.finish_reasons", _reasons(c.finish_reason for c in candidates))
    _usage(attributes, response.usage_metadata, "prompt_token_count", "candidates_token_count")
    return attributes


RESPONSE_ATTRIBUTES = {
    "openai.chat": chat,
    "openai.embeddings": embeddings,
    "openai.images": images,
    "openai.responses": responses,
    "anthropic.messages": anthropic,
    "gemini.generate_content": gemini,
}


class StreamFacts:
    """What a stream's events say about the response, gathered while the processor reads them."""

    def __init__(self, api: str) -> None:
        self.api = api
        self.response_id: str | None = None
        self.reasons: dict[int, Any] = {}
        self.usage: Any = None
        self.final: Any = None  # a stream's closing object that carries the whole response

    def watch(self, events: Iterable[Any]) -> Iterator[Any]:
        for event in events:
            self.see(event)
            yield event

    def see(self, event: Any) -> None:
        if self.api == "openai.chat":
            self.response_id = self.response_id or event.id
            for choice in event.choices or []:
                if choice.finish_reason is not None:
                    self.reasons[choice.index] = choice.finish_reason
            self.usage = event.usage or self.usage
        elif self.api == "openai.responses":
            response = getattr(event, "response", None)
            if response is not None:
                self.final = response
        elif self.api == "anthropic.messages":
            if event.type == "message_start":
                self.response_id = event.message.id
                self.usage = {"input_tokens": event.message.usage.input_tokens}
            elif event.type == "message_delta":
                self.reasons[0] = event.delta.stop_reason
                self.usage = {**(self.usage or {}), "output_tokens": event.usage.output_tokens}
        elif self.api == "gemini.generate_content":
            self.response_id = self.response_id or event.response_id
            for index, candidate in enumerate(event.candidates or []):
                if candidate.finish_reason is not None:
                    self.reasons[candidate.index or index] = candidate.finish_reason
            self.usage = event.usage_metadata or self.usage
        elif self.api == "openai.images":
            self.usage = getattr(event, "usage", None) or self.usage

    def attributes(self) -> dict[str, Any]:
        if self.final is not None:
            return RESPONSE_ATTRIBUTES[self.api](self.final)
        attributes: dict[str, Any] = {}
        _set(attributes, "gen_ai.response.id", self.response_id)
        reasons = _reasons(reason for _, reason in sorted(self.reasons.items()))
        _set(attributes, "gen_ai.response.finish_reasons", reasons)
        if isinstance(self.usage, dict):
            _set(attributes, "gen_ai.usage.input_tokens", self.usage.get("input_tokens"))
            _set(attributes, "gen_ai.usage.output_tokens", self.usage.get("output_tokens"))
        elif self.api == "openai.chat":
            _usage(attributes, self.usage, "prompt_tokens", "completion_tokens")
        elif self.api == "gemini.generate_content":
            _usage(attributes, self.usage, "prompt_token_count", "candidates_token_count")
        elif self.api == "openai.images":
            _usage(attributes, self.usage, "input_tokens", "output_tokens")
        return attributes
