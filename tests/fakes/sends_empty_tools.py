"""Sends the projected tool list whenever the agent declares one, even when it is empty
(breaks 7.1.3/null-tools-omitted)."""

from tests.fakes.base import ChatFake

BROKEN_RULE = "7.1.3/null-tools-omitted"


class Adapter(ChatFake):
    name = "sends-empty-tools"

    def build_request(self, api, agent, messages):
        body = super().build_request(api, agent, messages)
        if agent.get("tools") is not None:
            body.setdefault("tools", [])
        return body


adapter = Adapter()
