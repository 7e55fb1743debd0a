"""§7.1.8's response attributes: gen_ai.response.id, gen_ai.response.finish_reasons and
gen_ai.usage.input_tokens / output_tokens, read from the official SDK's objects.

Each is set only when the response has it: a response without usage gives no token attributes, not
0 (7.1.8/usage-absent-not-zero). Finish reasons are the provider's own values, one per choice or
candidate (7.1.8/finish-reasons, 7.1.8/finish-reasons-other-apis). A stream is read as it passes:
``StreamFacts.watch`` yields every event on unchanged and keeps what the span needs, each event read by
its api's ``*_event`` function. Which function serves which api is the api's record
(``wireconf.reference_impl.api_parts``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
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


# --- streams: what each event says, gathered while the processor reads them --------------------------


def _usage_of(usage: Any, input_name: str, output_name: str) -> dict[str, Any] | None:
    """A usage object's counts as ``{input_tokens, output_tokens}``; ``None`` for no usage."""
    return (
        None
        if usage is None
        else {
            "input_tokens": getattr(usage, input_name, None),
            "output_tokens": getattr(usage, output_name, None),
        }
    )


class StreamFacts:
    """What a stream's events say about the response, gathered while the processor reads them; each
    api's ``stream_event`` (below, named by its record) reads one event into it."""

    def __init__(
        self, see: Callable[[StreamFacts, Any], None], final: Callable[[Any], dict[str, Any]]
    ) -> None:
        self._see = see
        self._final = final
        self.response_id: str | None = None
        self.reasons: dict[int, Any] = {}
        self.usage: dict[str, Any] | None = None  # {input_tokens, output_tokens}
        self.final: Any = None  # a stream's closing object that carries the whole response

    def watch(self, events: Iterable[Any]) -> Iterator[Any]:
        for event in events:
            self._see(self, event)
            yield event

    def attributes(self) -> dict[str, Any]:
        if self.final is not None:
            return self._final(self.final)
        attributes: dict[str, Any] = {}
        _set(attributes, "gen_ai.response.id", self.response_id)
        reasons = _reasons(reason for _, reason in sorted(self.reasons.items()))
        _set(attributes, "gen_ai.response.finish_reasons", reasons)
        if self.usage is not None:
            _set(attributes, "gen_ai.usage.input_tokens", self.usage.get("input_tokens"))
            _set(attributes, "gen_ai.usage.output_tokens", self.usage.get("output_tokens"))
        return attributes


def chat_event(facts: StreamFacts, event: Any) -> None:
    facts.response_id = facts.response_id or event.id
    for choice in event.choices or []:
        if choice.finish_reason is not None:
            facts.reasons[choice.index] = choice.finish_reason
    facts.usage = _usage_of(event.usage, "prompt_tokens", "completion_tokens") or facts.usage


def responses_event(facts: StreamFacts, event: Any) -> None:
    response = getattr(event, "response", None)
    if response is not None:
        facts.final = response


def anthropic_event(facts: StreamFacts, event: Any) -> None:
    if event.type == "message_start":
        facts.response_id = event.message.id
        facts.usage = {"input_tokens": event.message.usage.input_tokens}
    elif event.type == "message_delta":
        facts.reasons[0] = event.delta.stop_reason
        facts.usage = {**(facts.usage or {}), "output_tokens": event.usage.output_tokens}


def gemini_event(facts: StreamFacts, event: Any) -> None:
    facts.response_id = facts.response_id or event.response_id
    for index, candidate in enumerate(event.candidates or []):
        if candidate.finish_reason is not None:
            facts.reasons[candidate.index or index] = candidate.finish_reason
    usage = _usage_of(event.usage_metadata, "prompt_token_count", "candidates_token_count")
    facts.usage = usage or facts.usage


def images_event(facts: StreamFacts, event: Any) -> None:
    facts.usage = _usage_of(getattr(event, "usage", None), "input_tokens", "output_tokens") or facts.usage
