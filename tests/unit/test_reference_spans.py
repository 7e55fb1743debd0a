"""The reference's process span (§8): emitted through the tracer provider that is set, left out only
while none is (the API's proxy: every span would be the no-op one, which records nothing)."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from wireconf.reference_impl.tracing import spans


def _processor(agent: dict[str, Any], response: Any) -> Any:
    if response == "refused":
        raise ValueError("Model refused")
    return {"text": response}


@pytest.fixture
def sdk_provider(monkeypatch: pytest.MonkeyPatch) -> InMemorySpanExporter:
    """An SDK provider seen as the global one, its tracer the reference's."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    monkeypatch.setattr(spans, "TRACER", provider.get_tracer("reference_impl"))
    return exporter


def test_with_a_provider_every_call_emits_one_process_span(sdk_provider: InMemorySpanExporter) -> None:
    traced = spans.process_span(_processor)
    assert traced({}, "hi") == {"text": "hi"}
    with pytest.raises(ValueError, match="Model refused"):
        traced({}, "refused")
    finished = sdk_provider.get_finished_spans()
    assert [span.name for span in finished] == ["process", "process"]
    assert finished[0].status.status_code is StatusCode.UNSET
    assert finished[1].status.status_code is StatusCode.ERROR  # the processor's exception recorded
    assert [event.name for event in finished[1].events] == ["exception"]


class _NoSpans:
    """A tracer that fails any span: what the reference must not ask for without a provider."""

    def start_as_current_span(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a span was started with no tracer provider set")


def test_without_a_provider_the_processor_runs_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: trace.ProxyTracerProvider())
    monkeypatch.setattr(spans, "TRACER", _NoSpans())
    traced = spans.process_span(_processor)
    assert traced({}, "hi") == {"text": "hi"}
    with pytest.raises(ValueError, match="Model refused"):  # its exception passes through as it was
        traced({}, "refused")
