"""The record of one provider API in the reference: its rule functions and what ``execute`` and the
tracing need to know about it. Each api package (``openai_chat``, …) holds one ``API``; the one list of
them is ``wireconf.reference_impl.apis``, from which the adapter's functions, ``execute`` and the span
attributes are derived.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Send = Callable[[Any, dict[str, Any], str, bool], Any]
"""``send(client, body, model_id, stream)``: the built body through the official SDK client; returns
the SDK's response object, or its stream object."""


@dataclass(frozen=True)
class ApiParts:
    name: str
    """The api as the harness names it (``openai.chat``)."""
    wire: Callable[[dict[str, Any], list[dict[str, Any]]], Any]
    """``wire(agent, messages)``: the request body (the ``wire`` kind)."""
    process: Callable[[dict[str, Any], Any], Any]
    """``process(agent, response)``: the result of an SDK response (``process``), emitting §8's span."""
    send: Send
    operation: str
    """gen_ai.operation.name of its execute span (§7.1.8, §7.2; decision 7.1.8/operation-name-other-apis)."""
    sent_options: tuple[str, ...]
    """The ModelOptions fields its request sends (its mapping table), traced as gen_ai.request.*."""
    response_attributes: Callable[[Any], dict[str, Any]]
    """The span attributes an SDK response object gives (``tracing.response_attributes``)."""
    stream: Callable[[dict[str, Any], Any], Any] | None = None
    """``stream(agent, events)``: the items of an SDK stream (``stream``); ``None``: it has no stream."""
    stream_event: Callable[[Any, Any], None] | None = None
    """``stream_event(facts, event)``: what one stream event says for the span (``StreamFacts``)."""
    stream_by_option: bool = False
    """The stream is another SDK method (another URL), asked for by the ``stream`` option, not a body
    field (Gemini, 7.9.7)."""
    always_traced: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """Request attributes it always sends, whatever the options say (Anthropic's max_tokens)."""

    @property
    def functions(self) -> dict[tuple[str, str], Callable[..., Any]]:
        """Its ``(kind, api)`` → function entries of the adapter."""
        functions: dict[tuple[str, str], Callable[..., Any]] = {
            ("wire", self.name): self.wire,
            ("process", self.name): self.process,
        }
        if self.stream is not None:
            functions[("stream", self.name)] = self.stream
        return functions
