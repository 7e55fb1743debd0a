"""Reads the whole stream before yielding anything (breaks 8.6/incremental)."""

from tests.fakes.base import FakeAdapter

BROKEN_RULE = "8.6/incremental"


class Adapter(FakeAdapter):
    name = "buffers-stream"

    def process_stream(self, api, agent, events):
        if api != "openai.chat":
            return super().process_stream(api, agent, events)
        return list(super().process_stream(api, agent, list(events)))


adapter = Adapter()
