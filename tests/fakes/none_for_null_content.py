"""Returns message.content as it is, so a null content gives None (breaks 8.1/null-content-empty-string)."""

from reference_impl.openai_chat import processing
from tests.fakes.base import FakeAdapter

BROKEN_RULE = "8.1/null-content-empty-string"


class Adapter(FakeAdapter):
    name = "none-for-null-content"

    def process(self, api, agent, response):
        if api != "openai.chat":
            return super().process(api, agent, response)
        message = response.choices[0].message
        if message.content is None and not message.tool_calls and not message.refusal:
            return None
        return processing.process_chat(agent, response)


adapter = Adapter()
