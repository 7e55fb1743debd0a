"""Tracing (§7.1.8, §7.2, §8's preamble): the spans the reference emits through the global
OpenTelemetry API, as a runtime does in production (the harness, or an application, picks the SDK).

- ``spans``: the tracer, the execute span around one ``execute`` call, the process span decorator;
- ``request_attributes``: what the span says about the request (operation, provider, model, options);
- ``response_attributes``: what it says about the response (id, finish reasons, token usage), from an
  SDK response object or gathered from the events of a stream as they pass.
"""
