"""A fake is the reference adapter with one method changed."""

from __future__ import annotations

from reference_impl.adapter import ReferenceAdapter


class FakeAdapter(ReferenceAdapter):
    version = "0.0.1"


class ChatFake(FakeAdapter):
    """A fake whose change is written for OpenAI Chat declares openai.chat only, so that the cases of
    other apis are unsupported rather than broken by a change meant for chat."""

    def capabilities(self):
        return {c for c in super().capabilities() if c.endswith(":openai.chat")}
