"""An e2e ``execute`` that takes the case's ``endpoint`` and leaves ``client`` out gets no SDK client,
and none is built for it (issue 34: the in-process client an endpoint adapter never used cost each e2e
case a new SDK client); an ``execute`` that names ``client``, beside ``endpoint`` or alone, still gets
one (the contract before)."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tests.conftest import CASES, REPO
from wireconf.cassettes.store import CassetteStore
from wireconf.kinds import e2e
from wireconf.kinds.base import HarnessContext
from wireconf.kinds.registry import KINDS, open_corpus
from wireconf.kinds.sites import CaseSites
from wireconf.sdk.replay import SdkReplay


class EndpointOnly:
    def capabilities(self) -> set[str]:
        return {"e2e:openai.chat"}

    def execute(self, api: str, agent: Any, messages: Any, *, endpoint: Any) -> Any:
        self.got = {"arguments": (api, agent, messages), "endpoint": endpoint}
        return ""


class AsyncEndpointOnly(EndpointOnly):
    async def execute(self, api: str, agent: Any, messages: Any, *, endpoint: Any) -> Any:  # type: ignore[override]
        self.got = {"arguments": (api, agent, messages), "endpoint": endpoint}
        return ""


class ClientAndEndpoint(EndpointOnly):
    """An adapter written before ``client`` could be left out: it still gets it."""

    def execute(self, api: str, agent: Any, messages: Any, client: Any, *, endpoint: Any) -> Any:  # type: ignore[override]
        self.got = {"arguments": (api, agent, messages, client), "endpoint": endpoint}
        return ""


class ClientOnly(EndpointOnly):
    def execute(self, api: str, agent: Any, messages: Any, client: Any) -> Any:  # type: ignore[override]
        self.got = {"arguments": (api, agent, messages, client), "endpoint": None}
        return ""


class Forwarding(EndpointOnly):
    """A proxy of any arguments (the exec adapter's shape): it may take the client, so it gets it."""

    def execute(self, *arguments: Any, endpoint: Any = None) -> Any:  # type: ignore[override]
        self.got = {"arguments": arguments, "endpoint": endpoint}
        return ""


def test_only_an_execute_with_the_endpoint_and_no_place_for_a_client_goes_without():
    assert not e2e.takes_client(EndpointOnly())
    assert not e2e.takes_client(AsyncEndpointOnly())
    assert e2e.takes_client(ClientAndEndpoint())
    assert e2e.takes_client(ClientOnly())
    assert e2e.takes_client(Forwarding())
    assert e2e.takes_client(object())  # no execute: nothing to leave out (the contract's error elsewhere)


@pytest.fixture
def case():
    return next(c for c in open_corpus(CASES).cases() if c.kind == "e2e" and c.api == "openai.chat")


@pytest.fixture
def built(monkeypatch) -> list[str]:
    """The apis the e2e kind built an SDK client for."""
    made: list[str] = []
    real = e2e.e2e_client

    def counted(api: str, exchange: Any) -> Any:
        made.append(api)
        return real(api, exchange)

    monkeypatch.setattr(e2e, "e2e_client", counted)
    return made


def _run(adapter: Any, case: Any) -> Any:
    ctx = HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())
    ctx.sites = CaseSites(adapter)
    try:
        outcome = KINDS["e2e"].prepare(ctx, case)(adapter)
    finally:
        problems = ctx.sites.close()
    assert outcome.raised is None, outcome.traceback
    assert problems == []
    return adapter.got


@pytest.mark.parametrize("adapter", [EndpointOnly(), AsyncEndpointOnly()], ids=["sync", "async"])
def test_an_endpoint_adapter_gets_the_endpoint_and_no_client(adapter, case, built):
    got = _run(adapter, case)
    assert got["arguments"][0] == "openai.chat"
    assert len(got["arguments"]) == 3  # api, agent, messages: no client
    assert got["endpoint"].api_base_url.startswith("http://127.0.0.1:")
    assert built == []


def test_an_adapter_that_names_the_client_beside_the_endpoint_still_gets_one(case, built):
    got = _run(ClientAndEndpoint(), case)
    assert isinstance(got["arguments"][3], openai.OpenAI)
    assert got["endpoint"] is not None
    assert built == ["openai.chat"]


def test_an_adapter_without_the_endpoint_gets_the_client_as_before(case, built):
    got = _run(ClientOnly(), case)
    assert isinstance(got["arguments"][3], openai.OpenAI)
    assert built == ["openai.chat"]


def test_an_exec_runtime_over_endpoints_is_asked_for_no_client():
    """The exec proxy of ``execute`` over endpoints (``exec_protocol.adapter.without_client``) declares
    no client, so the kind builds none; the proxied call gets ``None`` in the client's place, which it
    drops for the endpoint."""
    from wireconf.exec_protocol.adapter import without_client

    called: list[Any] = []

    def call(*arguments: Any, endpoint: Any = None) -> Any:
        called.append((arguments, endpoint))
        return "text"

    class Proxy:
        execute = staticmethod(without_client(call, e2e.EXECUTE))

    assert e2e.EXECUTE.takes_endpoint(Proxy())
    assert not e2e.takes_client(Proxy())
    assert Proxy().execute("openai.chat", {"a": 1}, [], endpoint="E") == "text"
    assert called == [(("openai.chat", {"a": 1}, [], None), "E")]
