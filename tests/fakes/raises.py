"""Its processor raises on every response: an adapter that crashes."""

from tests.fakes.base import FakeAdapter


class Adapter(FakeAdapter):
    name = "raises"

    def process(self, api, agent, response):
        raise RuntimeError("processor exploded on purpose")


adapter = Adapter()
