"""A fake is the reference adapter with one method changed.

Its ``execute`` (e2e) is built from its own ``build_request`` / ``process`` / ``process_stream``, as a
real runtime's one code path would be, so a fake that breaks a rule breaks it end to end too.
"""

from __future__ import annotations

from functools import partial

from wireconf.reference_impl.adapter import ReferenceAdapter
from wireconf.reference_impl.sdk_execute import execute_with


class FakeAdapter(ReferenceAdapter):
    version = "0.0.1"
    adapter_modules = ()
    """A fake is a runtime of its own, not an adapter around one: what it raises is the runtime's outcome
    (``wireconf.core.raise_site``), judged like any runtime's."""
    traced = False
    """A fake's changed method emits no span: fakes leave ``trace`` out unless they are about tracing."""

    def capabilities(self):
        return {c for c in super().capabilities() if self.traced or not c.startswith("trace:")}

    def execute(self, api, agent, messages, client):
        return execute_with(
            api,
            agent,
            messages,
            client,
            partial(self.build_request, api),
            partial(self.process, api),
            partial(self.process_stream, api),
        )


class ChatFake(FakeAdapter):
    """A fake whose change is written for OpenAI Chat declares openai.chat only, so that the cases of
    other apis are unsupported rather than broken by a change meant for chat."""

    def capabilities(self):
        return {c for c in super().capabilities() if c.endswith(":openai.chat")}
