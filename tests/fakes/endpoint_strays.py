"""A runtime that reaches past its case's endpoint: a path of the provider that is not the case's api,
a host of its own choosing through the proxy, and, from its second call on, the endpoint of the call
before (another case's URL, closed since). Every such request must be refused and made the case's
error, never a verdict, and none may reach a network."""

from __future__ import annotations

from typing import Any

import httpx

from wireconf.adapter_contract import Endpoint


class Adapter:
    name = "endpoint-strays"
    version = "0.0.1"
    adapter_modules = ()

    def __init__(self) -> None:
        self.previous: Endpoint | None = None
        self.calls = 0

    def capabilities(self) -> set[str]:
        return {"wire:openai.chat"}

    def build_request(
        self, api: str, agent: dict[str, Any], messages: list[dict[str, Any]], *, endpoint: Endpoint
    ) -> None:
        body = {"model": agent["model"]["id"], "messages": [{"role": "user", "content": "hi"}]}
        self.calls += 1
        target = self.previous if self.calls == 2 and self.previous else endpoint  # call 2: call 1's URL
        self.previous = endpoint
        with httpx.Client() as http:
            if self.calls == 3:
                http.post(endpoint.api_base_url + "/files", json={})  # not the case's api
            if self.calls == 4:
                with httpx.Client(proxy=endpoint.proxy) as proxied:
                    proxied.get("http://example.com/secret")  # no media URL of the case
            http.post(target.api_base_url + "/chat/completions", json=body)


adapter = Adapter()
