"""Reads the whole stream before yielding anything, on every api (breaks the incremental rule of
each: 8.6 for OpenAI Chat, 8.3 and 8.4's stream rules for Images and Responses, 8.5's for Anthropic,
8.9 for Gemini)."""

from tests.fakes.base import FakeAdapter

BROKEN_RULES = (
    "8.6/incremental",
    "8.3/stream-incremental",
    "8.4/stream-incremental",
    "8.5/stream-incremental",
    "8.9/incremental",
)


class Adapter(FakeAdapter):
    name = "buffers-stream"

    def process_stream(self, api, agent, events):
        return list(super().process_stream(api, agent, list(events)))


adapter = Adapter()
