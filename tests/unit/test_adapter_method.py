"""``AdapterMethod.invoke``: the one path by which every kind calls the adapter."""

from __future__ import annotations

import pytest

from wireconf.core.errors import ContractError
from wireconf.core.stream_probe import StreamProbe
from wireconf.kinds.blocks import STREAM_BLOCKS
from wireconf.kinds.e2e import EXECUTE
from wireconf.kinds.process import PROCESS, PROCESS_ASYNC
from wireconf.kinds.stream import PROCESS_STREAM
from wireconf.kinds.wire import TOOL_REGISTRY


def _probe(events: int) -> StreamProbe:
    return StreamProbe(events=[b"x"] * events)


class Adapter:
    def __init__(self, probe: StreamProbe | None = None) -> None:
        self.probe = probe
        self.calls: list[tuple] = []

    def process(self, api, agent, response):
        self.calls.append((api, agent, response))
        return iter([1, 2])  # a processor's result is not drained: it is judged as it is

    def process_stream(self, api, agent, events):
        for n in range(3):
            self.probe.read = n + 1  # the SDK read one more event
            yield n
            if n == 1:
                raise ValueError("broke after two items")

    def stream_blocks(self, api, events):
        return iter([{"blocks": []}])

    def set_tool_registry(self, entries):
        self.calls.append(("registry", entries))

    def execute(self, api, agent, messages, client):
        return ["a", "b"]


def test_the_method_is_called_by_its_name_with_the_api_first_and_its_value_kept():
    adapter = Adapter()
    outcome = PROCESS.invoke(adapter, "openai.chat", {"model": "m"}, "response")
    assert adapter.calls == [("openai.chat", {"model": "m"}, "response")]
    assert outcome.raised is None and not isinstance(outcome.value, list)  # an iterator left as it is


def test_a_method_without_api_gets_only_its_arguments():
    adapter = Adapter()
    assert TOOL_REGISTRY.invoke(adapter, None, [{"name": "t"}]).raised is None
    assert adapter.calls == [("registry", [{"name": "t"}])]


def test_a_yielding_method_keeps_what_it_yielded_before_raising_with_the_probe_at_each_item():
    probe = _probe(3)
    outcome = PROCESS_STREAM.invoke(Adapter(probe), "openai.chat", {}, object(), probes=[probe])
    assert isinstance(outcome.raised, ValueError)
    assert outcome.yielded == [0, 1]
    assert probe.read_at_yield == [1, 2]
    assert outcome.probe is probe
    assert "broke after two items" in outcome.traceback()


def test_a_collecting_method_returns_its_iterator_as_a_list_but_not_as_yielded_items():
    outcome = STREAM_BLOCKS.invoke(Adapter(), "openai.chat", object())
    assert outcome.value == [{"blocks": []}] and outcome.yielded == []


def test_a_method_that_may_stream_drains_a_list_only_when_its_input_streamed():
    probe = _probe(2)
    streamed = EXECUTE.invoke(Adapter(), "openai.chat", {}, [], object(), probes=[probe])
    assert streamed.value == ["a", "b"] and streamed.yielded == ["a", "b"] and probe.read_at_yield == [0, 0]
    plain = EXECUTE.invoke(Adapter(), "openai.chat", {}, [], object())
    assert plain.value == ["a", "b"] and plain.yielded == []


def test_an_adapter_without_the_method_is_an_outcome_that_raised():
    outcome = PROCESS.invoke(object(), "openai.chat", {}, "r")
    assert isinstance(outcome.raised, AttributeError)


class AsyncAdapter:
    """``process_async`` as §8 writes it, and two that break: one raises before awaiting, one is not
    ``async def``."""

    async def process_async(self, api, agent, response):
        if response == "raise":
            raise ValueError("raised while awaited")
        return [api, response]


def test_an_awaited_method_is_awaited_and_its_value_or_exception_is_the_outcome():
    done = PROCESS_ASYNC.invoke(AsyncAdapter(), "openai.chat", {}, "r")
    assert done.raised is None and done.value == ["openai.chat", "r"]
    failed = PROCESS_ASYNC.invoke(AsyncAdapter(), "openai.chat", {}, "raise")
    assert isinstance(failed.raised, ValueError) and "raised while awaited" in failed.traceback()


def test_an_awaited_method_that_returns_no_awaitable_is_a_contract_error_not_an_outcome():
    class NotAsync:
        def process_async(self, api, agent, response):
            return response

    with pytest.raises(ContractError, match=r"process_async returned str, not an awaitable"):
        PROCESS_ASYNC.invoke(NotAsync(), "openai.chat", {}, "r")
    missing = PROCESS_ASYNC.invoke(object(), "openai.chat", {}, "r")  # called, so an outcome
    assert isinstance(missing.raised, AttributeError)
