"""Copies an image part's detail whenever the key is present, "" and null included
(breaks 7.1.2/no-empty-detail)."""

from tests.fakes.base import FakeAdapter

BROKEN_RULE = "7.1.2/no-empty-detail"


class Adapter(FakeAdapter):
    name = "keeps-empty-detail"

    def build_request(self, api, agent, messages):
        body = super().build_request(api, agent, messages)
        if api != "openai.chat":
            return body
        for message, wire in zip(messages, body["messages"], strict=True):
            parts = message.get("content") or []
            if isinstance(wire["content"], list):
                for part, block in zip(parts, wire["content"], strict=True):
                    if part.get("kind") == "image" and "detail" in part:
                        block["image_url"]["detail"] = part["detail"]
        return body


adapter = Adapter()
