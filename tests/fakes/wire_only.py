"""Declares only wire:openai.chat: every other case is unsupported, not passed."""

from tests.fakes.base import FakeAdapter


class Adapter(FakeAdapter):
    name = "wire-only"

    def capabilities(self):
        return {"wire:openai.chat"}


adapter = Adapter()
