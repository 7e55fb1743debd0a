"""Its process_async returns the message's raw content: it ignores tool calls, structured output and
refusals, while its process (the reference's) conforms. Breaks 8/process-async-same-result."""

from tests.fakes.base import FakeAdapter

BROKEN_RULE = "8/process-async-same-result"


class Adapter(FakeAdapter):
    name = "async-returns-raw-content"

    async def process_async(self, api, agent, response):
        return response.choices[0].message.content or ""


adapter = Adapter()
