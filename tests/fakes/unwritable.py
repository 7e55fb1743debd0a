"""A runtime whose users cannot write an image part: its adapter refuses the input before the runtime
is called (``Unwritable``), which makes the case unsupported by it, never a failure or an error."""

from tests.fakes.base import FakeAdapter
from wireconf.errors import Unwritable


class Adapter(FakeAdapter):
    name = "unwritable"

    def build_request(self, api, agent, messages):
        for message in messages:
            if any(part.get("kind") == "image" for part in message.get("content") or []):
                raise Unwritable("an image part: this runtime's messages have no place for one")
        return super().build_request(api, agent, messages)


adapter = Adapter()
