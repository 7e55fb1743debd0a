"""Follows the spec's text literally where the project decided otherwise: a runtime that conforms to the
spec profile and deviates only from project decisions.

- §8.1's pseudocode returns ``message.content or ""``; a refusal (content null, refusal set) is
  therefore ``""``, where the project decided it raises (8.1/refusal-raises);
- §7.1.3's pseudocode projects a function tool as ``{name, description: tool.description,
  parameters}``, so a tool without a description is sent with ``description: null``, where the project
  decided the key is left out (7.1.3/null-description-omitted).
"""

from reference_impl.openai_chat.processing import parse_structured
from reference_impl.tool_call import ToolCall
from tests.fakes.base import FakeAdapter

PROJECT_RULES = ("8.1/refusal-raises", "7.1.3/null-description-omitted")


class Adapter(FakeAdapter):
    name = "spec-literal"

    def build_request(self, api, agent, messages):
        body = super().build_request(api, agent, messages)
        if api == "openai.chat":
            for tool in body.get("tools") or []:
                tool["function"].setdefault("description", None)
        return body

    def process(self, api, agent, response):
        if api != "openai.chat":
            return super().process(api, agent, response)
        message = response.choices[0].message
        if message.tool_calls:
            return [ToolCall(tc.id, tc.function.name, tc.function.arguments) for tc in message.tool_calls]
        return parse_structured(agent, message.content or "")


adapter = Adapter()
