"""The Python helper serves ``e2e`` over endpoints (protocol 4): an adapter whose ``execute`` takes the
case's endpoint and no client sends its requests to the endpoint itself, so nothing has to be bridged;
its hello declares the capability, the call reaches ``execute`` without a client, and a stream's items
go back as yields (issue 34: LlamaIndex's e2e over ``exec:``). An adapter that still takes the client
is not served on e2e (its client would have to be bridged back, which the helper does not do)."""

from __future__ import annotations

import io
from typing import Any

from wireconf.exec_protocol import serve
from wireconf.exec_protocol.messages import decode, encode

ENDPOINT = {
    "api": "openai.chat",
    "origin": "http://127.0.0.1:1/t",
    "api_base_url": "http://127.0.0.1:1/t/v1",
    "api_version": "v1",
    "key": "placeholder",
    "proxy": "http://127.0.0.1:1",
    "ca_file": None,
    "download": "http://127.0.0.1:1/t/.well-known/wireconf/download",
}


class EndpointOnly:
    name = "endpoint-only"
    version = "0.0.1"

    def capabilities(self) -> set[str]:
        return {"e2e:openai.chat", "wire:openai.chat", "trace:openai.chat"}

    def build_request(self, api: str, agent: Any, messages: Any, *, endpoint: Any) -> None:
        return None

    def execute(self, api: str, agent: Any, messages: Any, *, endpoint: Any) -> Any:
        self.got = (api, agent, messages, endpoint)
        if agent.get("stream"):
            return iter(["a", "b"])
        return "text"


class ClientAndEndpoint(EndpointOnly):
    def execute(self, api: str, agent: Any, messages: Any, client: Any, *, endpoint: Any) -> Any:  # type: ignore[override]
        return "text"


def _hello(adapter: Any, protocol: int = serve.SPOKEN) -> dict[str, Any]:
    out = io.StringIO()
    server = serve.Server(adapter, io.StringIO(), out, protocol=protocol)
    server.warm_up = lambda caps: None  # type: ignore[method-assign]  # no SDK to load for these
    server.serve()
    return decode(out.getvalue().splitlines()[0], "runtime")


def test_an_endpoint_only_execute_is_served_on_e2e():
    assert "e2e:openai.chat" in _hello(EndpointOnly())["capabilities"]
    assert "trace:openai.chat" not in _hello(EndpointOnly())["capabilities"]  # spans stay on its side
    assert "e2e:openai.chat" not in _hello(ClientAndEndpoint())["capabilities"]
    assert "e2e:openai.chat" not in _hello(EndpointOnly(), protocol=3)["capabilities"]  # no endpoints


def _call(adapter: Any, agent: dict[str, Any]) -> list[dict[str, Any]]:
    call = {
        "type": "call",
        "id": 1,
        "kind": "e2e",
        "api": "openai.chat",
        "method": "execute",
        "args": {"agent": agent, "messages": [{"role": "user"}]},
        "endpoint": ENDPOINT,
    }
    out = io.StringIO()
    serve.Server(adapter, io.StringIO(encode(call) + "\n"), out).run_call(decode(encode(call), "harness"))
    return [decode(line, "runtime") for line in out.getvalue().splitlines()]


def test_execute_gets_the_endpoint_and_no_client():
    adapter = EndpointOnly()
    replies = _call(adapter, {"model": {"id": "m"}})
    assert replies == [{"type": "result", "id": 1, "value": "text"}]
    api, agent, messages, endpoint = adapter.got
    assert (api, agent, messages) == ("openai.chat", {"model": {"id": "m"}}, [{"role": "user"}])
    assert endpoint.api_base_url == ENDPOINT["api_base_url"]


def test_a_streamed_result_goes_back_as_its_yields():
    replies = _call(EndpointOnly(), {"model": {"id": "m"}, "stream": True})
    assert replies == [
        {"type": "yield", "id": 1, "item": "a"},
        {"type": "yield", "id": 1, "item": "b"},
        {"type": "result", "id": 1, "value": None, "streamed": True},
    ]
