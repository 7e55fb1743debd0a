"""How a reproduction captures the spans of a ``trace`` case's ``execute`` call: the runtime called as
its ``e2e`` template calls it (``templates.E2E_TEMPLATES``), against the case's recorded response, under
the OpenTelemetry SDK's in-memory exporter (what ``wireconf.sdk.span_capture`` uses), with the runtime's
tracing switched on as its adapter switches it on (its documentation's way); the result the script
judges is the list of finished spans that carry ``gen_ai.*`` attributes, each as ``{"attributes": ...}``
(the case's ``expect``), compared on the attributes the case lists, as the harness judges them
(``wireconf.kinds.trace``).
"""

from __future__ import annotations

from wireconf.repro.script import Call

OTEL = """from opentelemetry import trace as _otel_trace
from opentelemetry.sdk.trace import TracerProvider as _TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor as _SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter as _Exporter

EXPORTER = _Exporter()
_provider = _TracerProvider()
_provider.add_span_processor(_SimpleSpanProcessor(EXPORTER))
_otel_trace.set_tracer_provider(_provider)
"""
"""The OpenTelemetry SDK's in-memory exporter, installed as the global tracer provider."""

SWITCHED_ON = {
    "prompty": (
        "from prompty.tracing.otel import otel_tracer\nfrom prompty.tracing.tracer import Tracer\n\n"
        'Tracer.add("otel", otel_tracer())  # prompty\'s OpenTelemetry backend, as its docs switch it on\n'
    ),
}
"""Per runtime, the lines that switch its tracing on, as its adapter does (``prompty_adapter``'s
``_enable_otel_tracing``); a runtime that traces through the global tracer provider needs none."""

SPANS = """

def gen_ai_spans():
    \"\"\"The finished spans that carry gen_ai.* attributes (the ones the rules judge), in end order.\"\"\"
    out = []
    for span in EXPORTER.get_finished_spans():
        attributes = {
            key: list(value) if isinstance(value, tuple) else value
            for key, value in (span.attributes or {}).items()
            if key.startswith("gen_ai.")
        }
        if attributes:
            out.append({"attributes": attributes})
    return out


def traced(base_url):
    \"\"\"The runtime's call, read to its end (a stream too); its raise is not judged, its spans are.\"\"\"
    try:
        got = execute(base_url)
        if got is not None and not isinstance(got, (str, bytes, dict, list)) and hasattr(got, "__iter__"):
            for _ in got:
                pass
    except Exception as error:  # the spans are judged whether the call raises or returns
        print(f"(the call raised {type(error).__name__}: {error}; its spans are judged)")"""


def traced_call(runtime: str, call: Call) -> Call:
    """``call`` (an ``e2e`` template's) run under the in-memory exporter, its spans returned."""
    body = "\n".join("    " + line if line else "" for line in call.body.strip("\n").splitlines())
    prelude = "\n".join(
        [OTEL, SWITCHED_ON.get(runtime, ""), call.prelude.strip("\n"), f"\n\ndef execute(base_url):\n{body}"]
    )
    return Call(
        (*call.requirements, "opentelemetry-sdk"),
        prelude + SPANS,
        "traced(base_url)\nreturn gen_ai_spans()",
    )


TRACE_TEMPLATES = frozenset(SWITCHED_ON)
"""The runtimes whose ``trace`` case of ``execute`` a script reproduces."""
