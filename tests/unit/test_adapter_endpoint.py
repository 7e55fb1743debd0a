"""The endpoint contract of ``AdapterMethod``: a method that declares a keyword-only ``endpoint`` gets
the case's endpoint, read from its signature once per function; a coroutine function is awaited and an
async generator function drained, whatever the method, with what came before a raise kept."""

from __future__ import annotations

from typing import Any

from wireconf.core.stream_probe import StreamProbe
from wireconf.kinds.kind import AdapterMethod, shape_of
from wireconf.kinds.stream import PROCESS_STREAM
from wireconf.kinds.wire import BUILD_REQUEST

ENDPOINT: Any = object()  # what the kind hands over; the contract only passes it on


class Asks:
    def build_request(self, api: str, agent: Any, messages: Any, *, endpoint: Any) -> Any:
        return {"endpoint": endpoint}


class Positional:
    def build_request(self, api: str, agent: Any, messages: Any, endpoint: Any = None) -> Any:
        return {"endpoint": endpoint}


class Keywords:
    def build_request(self, api: str, agent: Any, messages: Any, **options: Any) -> Any:
        return {"options": options}


class Async:
    async def build_request(self, api: str, agent: Any, messages: Any, *, endpoint: Any) -> Any:
        return {"awaited": endpoint is ENDPOINT}

    async def process_stream(self, api: str, agent: Any, events: Any) -> Any:
        yield "a"
        yield "b"
        raise ValueError("after two")


def test_only_a_keyword_only_endpoint_is_asked_for():
    assert BUILD_REQUEST.takes_endpoint(Asks())
    assert not BUILD_REQUEST.takes_endpoint(Positional())  # a positional `endpoint` is another argument
    assert not BUILD_REQUEST.takes_endpoint(Keywords())  # **options declares nothing
    assert not BUILD_REQUEST.takes_endpoint(object())  # no such method
    assert BUILD_REQUEST.invoke(Asks(), "openai.chat", {}, [], endpoint=ENDPOINT).value == {
        "endpoint": ENDPOINT
    }
    assert BUILD_REQUEST.invoke(Positional(), "openai.chat", {}, [], endpoint=ENDPOINT).value == {
        "endpoint": None
    }
    assert BUILD_REQUEST.invoke(Keywords(), "openai.chat", {}, [], endpoint=ENDPOINT).value == {"options": {}}


def test_the_shape_is_read_once_per_function():
    first, second = Asks(), Asks()
    assert shape_of(first.build_request) is shape_of(second.build_request)


def test_a_coroutine_method_is_awaited():
    outcome = BUILD_REQUEST.invoke(Async(), "openai.chat", {}, [], endpoint=ENDPOINT)
    assert outcome.raised is None and outcome.value == {"awaited": True}


def test_an_async_generator_is_drained_item_by_item_keeping_what_came_before_a_raise():
    probe = StreamProbe([b"data: 1\n\n", b"data: 2\n\n"])
    outcome = PROCESS_STREAM.invoke(Async(), "openai.chat", {}, iter(()), probes=[probe])
    assert outcome.yielded == ["a", "b"]
    assert isinstance(outcome.raised, ValueError)
    assert probe.read_at_yield == [0, 0]  # each yield counted


def test_a_sync_generator_method_is_unchanged():
    class Sync:
        def process_stream(self, api: str, agent: Any, events: Any) -> Any:
            yield from events

    outcome = PROCESS_STREAM.invoke(Sync(), "openai.chat", {}, iter(["x", "y"]))
    assert outcome.value == ["x", "y"] and outcome.raised is None
    assert AdapterMethod("process_stream", ("agent", "events"), yields=True).takes_endpoint(Sync()) is False
