"""Returns objects that are not data: a lock from process, a list of mappings from build_request."""

import threading

from tests.fakes.base import FakeAdapter


class Adapter(FakeAdapter):
    name = "returns-junk"

    def process(self, api, agent, response):
        return {"result": threading.Lock()}

    def build_request(self, api, agent, messages):
        return [super().build_request(api, agent, messages)]


adapter = Adapter()
