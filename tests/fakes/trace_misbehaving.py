"""Runtimes whose spans deviate from §7.1.8 / §8, one way each, and adapters without tracing."""

from __future__ import annotations

from opentelemetry import trace

from tests.fakes.base import ChatFake
from wireconf.reference_impl.adapter import FUNCTIONS, ReferenceAdapter

_TRACER = trace.get_tracer("tests.fakes.trace_misbehaving")


class DeprecatedNames(ChatFake):
    """Its own execute span, with the attribute names of older conventions: gen_ai.system for the
    provider, the wire's max_completion_tokens, prompt_tokens for input tokens; no finish reasons."""

    name = "deprecated-names"
    traced = True

    def execute(self, api, agent, messages, client):
        with _TRACER.start_as_current_span("chat") as span:
            body = self.build_request(api, agent, messages)
            span.set_attributes(
                {
                    "gen_ai.operation.name": "chat",
                    "gen_ai.system": agent["model"]["provider"],
                    "gen_ai.request.model": agent["model"]["id"],
                    **{
                        f"gen_ai.request.{k}": v
                        for k, v in body.items()
                        if k in ("max_completion_tokens", "seed")
                    },
                    "server.address": "api.openai.com",  # not gen_ai.*: never judged
                }
            )
            response = client.chat.completions.create(**body)
            span.set_attribute("gen_ai.response.id", response.id)
            span.set_attribute("gen_ai.usage.prompt_tokens", response.usage.prompt_tokens)
            span.set_attribute("gen_ai.usage.output_tokens", response.usage.completion_tokens)
            return self.process(api, agent, response)


class NoProcessSpan(ChatFake):
    """Processes with the reference's processor, unwrapped: no process span."""

    name = "no-process-span"
    traced = True

    def process(self, api, agent, response):
        return FUNCTIONS[("process", api)].__wrapped__(agent, response)

    async def process_async(self, api, agent, response):
        return self.process(api, agent, response)


class Crashes(ChatFake):
    """Emits its process span, then crashes inside it."""

    name = "crashes"
    traced = True

    def process(self, api, agent, response):
        with _TRACER.start_as_current_span("process"):
            raise RuntimeError("processor exploded on purpose")


class Untraced(ChatFake):
    """Declares everything but trace (a fake's default)."""

    name = "untraced"


_reference = ReferenceAdapter()


class TracedWithoutProcessAsync:
    """Declares trace and process on openai.chat, has no process_async, and an execute it does not
    declare (no e2e capability)."""

    name = "traced-without-process-async"
    version = "0.0.1"

    def capabilities(self):
        return {"process:openai.chat", "trace:openai.chat"}

    def process(self, api, agent, response):
        return _reference.process(api, agent, response)

    def execute(self, api, agent, messages, client):
        return _reference.execute(api, agent, messages, client)


deprecated_names = DeprecatedNames()
no_process_span = NoProcessSpan()
untraced = Untraced()
crashes = Crashes()
traced_without_process_async = TracedWithoutProcessAsync()
