"""Maps maxOutputTokens to the deprecated max_tokens (breaks 7.1.5/max-completion-tokens)."""

from tests.fakes.base import FakeAdapter

BROKEN_RULE = "7.1.5/max-completion-tokens"


class Adapter(FakeAdapter):
    name = "sends-max-tokens"

    def build_request(self, api, agent, messages):
        body = super().build_request(api, agent, messages)
        if api == "openai.chat" and "max_completion_tokens" in body:
            body["max_tokens"] = body.pop("max_completion_tokens")
        return body


adapter = Adapter()
