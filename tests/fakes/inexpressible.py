"""A runtime whose users cannot write an image part: its adapter says so before the runtime is called
(``Inexpressible``), which makes the case unsupported by it, never a failure or an error."""

from tests.fakes.base import FakeAdapter
from wireconf.adapter_contract import Inexpressible

REASON = "an image part: this runtime's messages have no place for one"


class Adapter(FakeAdapter):
    name = "inexpressible"

    def build_request(self, api, agent, messages):
        for message in messages:
            if any(part.get("kind") == "image" for part in message.get("content") or []):
                raise Inexpressible(REASON)
        return super().build_request(api, agent, messages)


adapter = Adapter()
