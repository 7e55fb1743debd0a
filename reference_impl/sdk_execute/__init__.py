"""``execute`` for every api (the e2e kind): build the body with the api's wire function, send it
through the official SDK client the caller hands over, and process what comes back with the api's
process function (or its stream function, when the body asks for a stream).

An api gets an ``("e2e", api)`` entry as soon as the other parts of the reference implementation
register its ``wire`` and ``process`` functions; nothing here is specific to one api beyond how its
SDK method is called (``sdk_calls``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from opentelemetry.trace import use_span

from reference_impl import (
    anthropic_messages,
    gemini_generate_content,
    openai_chat,
    openai_embeddings,
    openai_images,
    openai_responses,
)
from reference_impl.sdk_execute.sdk_calls import SDK_CALLS
from reference_impl.sdk_execute.sdk_calls import gemini_generate_content as gemini_call
from reference_impl.tracing.request_attributes import request_attributes
from reference_impl.tracing.response_attributes import RESPONSE_ATTRIBUTES, StreamFacts
from reference_impl.tracing.spans import ending, execute_span, fail

_PARTS = (
    openai_chat,
    openai_embeddings,
    openai_images,
    openai_responses,
    anthropic_messages,
    gemini_generate_content,
)
APIS = (*SDK_CALLS, "gemini.generate_content")


def _function(kind: str, api: str) -> Callable[..., Any] | None:
    for part in _PARTS:
        function = part.FUNCTIONS.get((kind, api))
        if function is not None:
            return function
    return None


STREAM_BY_METHOD = ("gemini.generate_content",)
"""apis whose stream is another SDK method (another URL), not a body field: the option asks for it."""


def asks_for_stream(api: str, agent: dict[str, Any], body: dict[str, Any]) -> bool:
    """``"stream": true`` in the body, or for ``STREAM_BY_METHOD`` apis in the options (7.9.7)."""
    if body.get("stream") is True:
        return True
    if api in STREAM_BY_METHOD:
        options = agent["model"].get("options") or {}
        return (options.get("additionalProperties") or {}).get("stream") is True
    return False


def send(api: str, client: Any, body: dict[str, Any], model_id: str, stream: bool) -> Any:
    """Send ``body`` through the SDK client: the SDK's response object, or its stream object."""
    if api == "gemini.generate_content":
        return gemini_call(client, body, model_id, stream)
    return SDK_CALLS[api](client, body)


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
    stream_asked = asks_for_stream(api, agent, body)
    span = execute_span(request_attributes(api, agent))
    try:
        with use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
            response = send(api, client, body, agent["model"]["id"], stream_asked)
            if not stream_asked:
                span.set_attributes(RESPONSE_ATTRIBUTES[api](response))
                result = process(agent, response)
                span.end()
                return result
            if stream is None:
                raise NotImplementedError(
                    f"the request asks for a stream, and there is no stream function for {api}"
                )
            facts = StreamFacts(api)
            items = stream(agent, facts.watch(response))
    except BaseException as exc:
        fail(span, exc)
        raise
    return ending(span, iter(items), facts.attributes)


def execute(api: str, agent: dict[str, Any], messages: list[dict[str, Any]], client: Any) -> Any:
    """``execute_with`` the api's registered wire, process and stream functions."""
    build, process = _function("wire", api), _function("process", api)
    if build is None or process is None:
        raise NotImplementedError(f"no wire or process function for {api}")
    return execute_with(api, agent, messages, client, build, process, _function("stream", api))


EXECUTABLE = tuple(api for api in APIS if _function("wire", api) is not None and _function("process", api))

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    **{("e2e", api): partial(execute, api) for api in EXECUTABLE},
    # trace: the spans of execute (§7.1.8, §7.2) and of process / process_async (§8), which emit them
    **{("trace", api): partial(request_attributes, api) for api in EXECUTABLE},
}
