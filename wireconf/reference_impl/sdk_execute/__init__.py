"""``execute`` for every api (the e2e kind): build the body with the api's wire function, send it
through the official SDK client the caller hands over, and process what comes back with the api's
process function (or its stream function, when the body asks for a stream).

Every api of ``wireconf.reference_impl.apis`` gets an ``("e2e", api)`` entry; nothing here is specific to one
api: how its SDK method is called, whether its stream is a body field or another method, and what
its span says are the api's record (``wireconf.reference_impl.api_parts``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from opentelemetry.trace import use_span

from wireconf.reference_impl.api_parts import ApiParts
from wireconf.reference_impl.apis import APIS
from wireconf.reference_impl.tracing.request_attributes import request_attributes
from wireconf.reference_impl.tracing.response_attributes import StreamFacts
from wireconf.reference_impl.tracing.spans import ending, execute_span, fail


def asks_for_stream(parts: ApiParts, agent: dict[str, Any], body: dict[str, Any]) -> bool:
    """``"stream": true`` in the body, or for an api whose stream is another SDK method, the ``stream``
    option (``ApiParts.stream_by_option``, 7.9.7)."""
    if body.get("stream") is True:
        return True
    if parts.stream_by_option:
        options = agent["model"].get("options") or {}
        return (options.get("additionalProperties") or {}).get("stream") is True
    return False


def send(api: str, client: Any, body: dict[str, Any], model_id: str, stream: bool) -> Any:
    """Send ``body`` through the SDK client: the SDK's response object, or its stream object."""
    return APIS[api].send(client, body, model_id, stream)


def execute_with(
    api: str,
    agent: dict[str, Any],
    messages: list[dict[str, Any]],
    client: Any,
    build: Callable[[dict[str, Any], list[dict[str, Any]]], Any],
    process: Callable[[dict[str, Any], Any], Any],
    stream: Callable[[dict[str, Any], Any], Any] | None,
) -> Any:
    """One call with the given parts: build, send through the SDK, process the response or stream,
    inside §7.1.8's execute span (which ends when the result, or the last streamed item, is ready).
    Returns the processed result, or the generator of a processed stream."""
    built = build(agent, messages)
    if not isinstance(built, Mapping):  # dict() would turn a list of one 2-key body into {key: key}
        raise TypeError(f"the wire function returned {type(built).__name__}, not a mapping")
    body = dict(built)
    parts = APIS[api]
    stream_asked = asks_for_stream(parts, agent, body)
    span = execute_span(request_attributes(api, agent))
    try:
        with use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
            response = send(api, client, body, agent["model"]["id"], stream_asked)
            if not stream_asked:
                span.set_attributes(parts.response_attributes(response))
                result = process(agent, response)
                span.end()
                return result
            if stream is None:
                raise NotImplementedError(
                    f"the request asks for a stream, and there is no stream function for {api}"
                )
            facts = StreamFacts(parts.stream_event or _no_facts, parts.response_attributes)
            items = stream(agent, facts.watch(response))
    except BaseException as exc:
        fail(span, exc)
        raise
    return ending(span, iter(items), facts.attributes)


def _no_facts(facts: StreamFacts, event: Any) -> None:
    """An api whose record says nothing about its stream events: the span gets no response facts."""


def execute(api: str, agent: dict[str, Any], messages: list[dict[str, Any]], client: Any) -> Any:
    """``execute_with`` the api's wire, process and stream functions."""
    parts = APIS[api]
    return execute_with(api, agent, messages, client, parts.wire, parts.process, parts.stream)


FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    **{("e2e", api): partial(execute, api) for api in APIS},
    # trace: the spans of execute (§7.1.8, §7.2) and of process / process_async (§8), which emit them
    **{("trace", api): partial(request_attributes, api) for api in APIS},
}
