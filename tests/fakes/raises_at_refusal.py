"""Raises at a refusal, as the project's rule used to: a third behaviour that neither §8.1's text (``""``
for null content) nor the spec authors' vector chat_refusal (the refusal text) gives. Breaks
8.1/refusal-text, which declares that a raise in its cases is its own deviation."""

from openai.types.chat import ChatCompletion

from tests.fakes.base import ChatFake
from wireconf.reference_impl.openai_chat import processing
from wireconf.reference_impl.sdk_objects import from_mapping

BROKEN_RULE = "8.1/refusal-text"


class Adapter(ChatFake):
    name = "raises-at-refusal"

    def process(self, api, agent, response):
        response = from_mapping(ChatCompletion, response)  # a plain mapping is read like the reference does
        message = response.choices[0].message
        if not message.content and not message.tool_calls and message.refusal:
            raise ValueError(f"Model refused: {message.refusal}")
        return processing.process_chat(agent, response)


adapter = Adapter()
