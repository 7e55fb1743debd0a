"""Returns message.content as it is, so a null content gives None (breaks 8.1/null-content-empty-string)."""

from openai.types.chat import ChatCompletion

from tests.fakes.base import ChatFake
from wireconf.reference_impl.openai_chat import processing
from wireconf.reference_impl.sdk_objects import from_mapping

BROKEN_RULE = "8.1/null-content-empty-string"


class Adapter(ChatFake):
    name = "none-for-null-content"

    def process(self, api, agent, response):
        response = from_mapping(ChatCompletion, response)  # a plain mapping is read like the reference does
        message = response.choices[0].message
        if message.content is None and not message.tool_calls and not message.refusal:
            return None
        return processing.process_chat(agent, response)


adapter = Adapter()
