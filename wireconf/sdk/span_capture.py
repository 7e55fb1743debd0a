"""Capturing the OpenTelemetry spans a runtime emits, for the ``trace`` kind.

A runtime emits spans through the global OpenTelemetry API, as it does in production; the harness
listens with the OpenTelemetry SDK: a ``SimpleSpanProcessor`` feeding an ``InMemorySpanExporter``,
attached to the process's global ``TracerProvider``. OpenTelemetry lets the global provider be set
only once per process, so the capture is process-wide and installed on first use:

- no provider set yet: the harness sets an SDK ``TracerProvider`` of its own, whose sampler records
  spans only while a trace case's call runs (the spans of every other case cost nothing);
- an SDK ``TracerProvider`` already set (by the runtime, a conftest, ``opentelemetry-instrument``):
  the harness adds its processor to it, and the runtime's own exporters keep working;
- any other provider (a vendor's own implementation, a no-op one): spans cannot be observed, and
  every trace case is an error that says why (``TracingUnavailable``).

Spans are snapshotted as plain data right away (``CapturedSpan``): name, the ``gen_ai.*`` attributes
(OpenTelemetry's tuples become lists), the names of the other attributes and the emitting scope.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult
from opentelemetry.trace import Link, SpanKind, StatusCode, TraceState
from opentelemetry.util.types import Attributes

from wireconf.core.errors import WireconfError
from wireconf.core.untyped import JSON
from wireconf.providers.registry import TRACING_SCOPES

GEN_AI_PREFIX = "gen_ai."
SDK_SCOPES = TRACING_SCOPES
"""Instrumentation scopes of the official SDKs' own tracing (the provider records'). Their spans come
from the SDK client the harness hands the runtime (the anthropic SDK traces its calls when an
OpenTelemetry SDK is present), not from the runtime: they are shown in failures, never judged."""


class TracingUnavailable(WireconfError):
    """The process's tracer provider is one the harness cannot attach an exporter to."""


@dataclass(frozen=True)
class CapturedSpan:
    """One finished span as plain data: what the trace verdict reads."""

    name: str
    gen_ai: dict[str, Any]
    other_attributes: list[str] = field(default_factory=list)
    error: str | None = None
    """The span's status description when its status is ERROR (shown, never judged)."""
    scope: str = ""
    """The instrumentation scope (the tracer's name) that emitted the span."""

    @property
    def from_sdk_client(self) -> bool:
        return self.scope in SDK_SCOPES


def _plain(value: JSON) -> JSON:
    return [_plain(v) for v in value] if isinstance(value, tuple | list) else value


def snapshot(span: ReadableSpan) -> CapturedSpan:
    attributes = dict(span.attributes or {})
    gen_ai = {k: _plain(v) for k, v in attributes.items() if k.startswith(GEN_AI_PREFIX)}
    others = sorted(k for k in attributes if not k.startswith(GEN_AI_PREFIX))
    status = span.status
    error = (status.description or "ERROR") if status.status_code is StatusCode.ERROR else None
    scope = span.instrumentation_scope.name if span.instrumentation_scope is not None else ""
    return CapturedSpan(span.name, gen_ai, others, error, scope)


def attach(provider: object) -> InMemorySpanExporter:
    """A new in-memory exporter fed by ``provider``; raises ``TracingUnavailable`` when ``provider`` is
    not the OpenTelemetry SDK's ``TracerProvider`` (only that one takes span processors)."""
    if not isinstance(provider, TracerProvider):
        cls = type(provider)
        raise TracingUnavailable(
            f"the global OpenTelemetry tracer provider is {cls.__module__}.{cls.__qualname__}, not the "
            "OpenTelemetry SDK's TracerProvider, so wireconf cannot add its in-memory span processor "
            "to it: set an opentelemetry.sdk.trace.TracerProvider as the global provider (wireconf adds "
            "its processor beside yours), or set none and wireconf installs one"
        )
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter


class WhileCapturing(Sampler):
    """Records spans while a capture is on (a trace case's call), drops them otherwise."""

    active = False

    def should_sample(
        self,
        parent_context: Context | None,
        trace_id: int,
        name: str,
        kind: SpanKind | None = None,
        attributes: Attributes = None,
        links: Sequence[Link] | None = None,
        trace_state: TraceState | None = None,
    ) -> SamplingResult:
        # the attributes given at span start are kept only when the sampler passes them on
        if not WhileCapturing.active:
            return SamplingResult(Decision.DROP)
        return SamplingResult(Decision.RECORD_AND_SAMPLE, attributes)

    def get_description(self) -> str:
        return "wireconf: while a trace case runs"


class SpanCapture:
    """The process's one capture: attached on first use, cleared around each trace case."""

    _lock = threading.Lock()
    _exporter: InMemorySpanExporter | None = None
    _failure: TracingUnavailable | None = None

    @classmethod
    def exporter(cls) -> InMemorySpanExporter:
        with cls._lock:
            if cls._failure is not None:
                raise cls._failure
            if cls._exporter is None:
                try:
                    cls._exporter = attach(_global_provider())
                except TracingUnavailable as exc:
                    cls._failure = exc
                    raise
            return cls._exporter

    @classmethod
    def start(cls) -> InMemorySpanExporter:
        """The exporter, emptied: what it holds next is what the coming call emits."""
        exporter = cls.exporter()
        exporter.clear()
        WhileCapturing.active = True
        return exporter

    @staticmethod
    def collect(exporter: InMemorySpanExporter) -> list[CapturedSpan]:
        """The spans finished since ``start``, in the order they ended, as plain data; then empties
        the exporter (spans of other kinds' cases are not kept)."""
        WhileCapturing.active = False
        spans = [snapshot(span) for span in exporter.get_finished_spans()]
        exporter.clear()
        return spans


def _global_provider() -> object:
    """The global tracer provider, after setting an SDK one if none was set (the API's default is a
    proxy that stands for "not set yet")."""
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        trace.set_tracer_provider(TracerProvider(sampler=WhileCapturing()))
    return trace.get_tracer_provider()
