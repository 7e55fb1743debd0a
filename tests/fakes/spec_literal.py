"""Follows the spec's text literally where Prompty's vectors or a project decision say otherwise: a
runtime that conforms to the spec profile and deviates only from rules outside it.

- §8.1's pseudocode returns ``message.content or ""``; a refusal (content null, refusal set) is
  therefore ``""``, where the spec authors' vector chat_refusal returns the refusal text
  (8.1/refusal-text, tier vectors);
- §7.1.3's pseudocode projects a function tool as ``{name, description: tool.description,
  parameters}``, so a tool without a description is sent with a description key, where the project
  decided the key is left out (7.1.3/null-description-omitted, tier project). The letter gives
  ``description: null``, a request the provider's own SDK type rejects (``FunctionDefinition.description``
  is a string: ``wireconf.judging.schema_check``), which fails in every profile; this fake, meant to
  deviate outside the spec profile only, sends the empty description a runtime typing it as a string
  would;
- §8.1's pseudocode reads the response's fields by name (``response.choices[0].message``) and the spec
  never says a processor is handed anything but the SDK's object, so a plain mapping fails as it would
  in a runtime that only knows SDK classes, where the project decided a mapping is read like the
  object of the same body (8/plain-mapping-response, tier project).

It is judged on openai.chat. The literal readings it leaves out are those whose differences no rule
can declare yet: a §7.4.1 Responses request with the system message as an input item shifts every
later item by one, and a §7.1.4 schema without ``items`` or nested ``properties`` differs inside
schemas that other cases check for other rules; both are charged to the cases' cited rules too.
"""

from tests.fakes.base import FakeAdapter
from wireconf.reference_impl.openai_chat.processing import parse_structured
from wireconf.reference_impl.tool_call import ToolCall

BROKEN = {
    "8.1/refusal-text": "vectors",
    "7.1.3/null-description-omitted": "project",
    "8/plain-mapping-response": "project",
}
"""The rules the fake breaks, with their tiers: none is the spec's text."""


class Adapter(FakeAdapter):
    name = "spec-literal"

    def build_request(self, api, agent, messages):
        body = super().build_request(api, agent, messages)
        if api == "openai.chat":
            for tool in body.get("tools") or []:
                tool["function"].setdefault("description", "")
        return body

    def process(self, api, agent, response):
        if api != "openai.chat":
            return super().process(api, agent, response)
        message = response.choices[0].message
        if message.tool_calls:
            return [ToolCall(tc.id, tc.function.name, tc.function.arguments) for tc in message.tool_calls]
        return parse_structured(agent, message.content or "")


adapter = Adapter()
