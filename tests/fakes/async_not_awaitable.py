"""Its process_async is a plain function: a contract violation, so no verdict is possible."""

from tests.fakes.base import FakeAdapter


class Adapter(FakeAdapter):
    name = "async-not-awaitable"

    def process_async(self, api, agent, response):
        return self.process(api, agent, response)


adapter = Adapter()
