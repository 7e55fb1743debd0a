"""The reference's spans, through the global OpenTelemetry API.

``execute_span`` is the §7.1.8 span of one ``execute`` call (a CLIENT span named
``"{operation} {model}"`` as the semantic conventions suggest; wireconf does not judge names).
``process_span`` wraps a process function so that every call emits §8's process span, also when the
processor raises (the span then records the exception). When ``execute`` processes the response, the
process span is a child of the execute span. While no tracer provider is set (the API's proxy stands
for "not set yet"), every span is the API's no-op one, which records nothing and carries the enclosing
span's context: the process span is then left out, which nobody can observe, and the processor is
spared the no-op's three context managers (about 10 µs a call, two calls a ``process`` case).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

TRACER = trace.get_tracer("reference_impl")


def process_span(process: Callable[[dict[str, Any], Any], Any]) -> Callable[[dict[str, Any], Any], Any]:
    """``process`` emitting one span per call."""

    @functools.wraps(process)
    def traced(agent: dict[str, Any], response: Any) -> Any:
        if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
            return process(agent, response)  # no provider: the span would be the no-op one
        with TRACER.start_as_current_span("process"):
            return process(agent, response)

    return traced


def execute_span(attributes: dict[str, Any]) -> Span:
    """A started execute span carrying the request attributes; the caller ends it."""
    name = f"{attributes['gen_ai.operation.name']} {attributes['gen_ai.request.model']}"
    return TRACER.start_span(name, kind=SpanKind.CLIENT, attributes=attributes)


def fail(span: Span, exc: BaseException) -> None:
    span.record_exception(exc)
    span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))
    span.end()


def ending(span: Span, items: Iterator[Any], finish: Callable[[], dict[str, Any]]) -> Iterator[Any]:
    """``items`` yielded on; the span gets ``finish()``'s attributes and ends once they run out."""
    try:
        yield from items
    except GeneratorExit:  # the consumer stopped early: not an error of the call
        span.set_attributes(finish())
        span.end()
        raise
    except BaseException as exc:
        span.set_attributes(finish())
        fail(span, exc)
        raise
    span.set_attributes(finish())
    span.end()
