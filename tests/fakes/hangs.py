"""Its stream processor never returns: an adapter that hangs."""

import threading

from tests.fakes.base import FakeAdapter

RELEASE = threading.Event()


class Adapter(FakeAdapter):
    name = "hangs"

    def process_stream(self, api, agent, events):
        RELEASE.wait(600)
        return []


adapter = Adapter()
