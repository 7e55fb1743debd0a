"""Sends the projected tool list whenever the agent declares one, even when it is empty
(breaks 7.1.3/null-tools-omitted)."""

from tests.fakes.base import FakeAdapter

BROKEN_RULE = "7.1.3/null-tools-omitted"


class Adapter(FakeAdapter):
    name = "sends-empty-tools"

    def build_request(self, api, agent, messages):
        body = super().build_request(api, agent, messages)
        if api == "openai.chat" and agent.get("tools") is not None:
            body.setdefault("tools", [])
        return body


adapter = Adapter()
