"""An adapter around a runtime of its own (``tests.fakes.adapter_bug_runtime``), the way a third party
writes one: the adapter maps the case's input and calls the runtime. Its own code has a bug (a case with
a system message: it reads a key no message has), and the runtime has one of its own (a case with a
developer message: it raises). The first is the adapter's, an error naming it; the second is the
runtime's, judged (``wireconf.core.raise_site``). Every other case goes through the reference."""

from tests.fakes import adapter_bug_runtime
from wireconf.reference_impl.adapter import ReferenceAdapter


def _roles(messages):
    return {message.get("role") for message in messages}


class Adapter(ReferenceAdapter):
    name = "adapter-bug"
    version = "0.0.1"

    def capabilities(self):
        return {c for c in super().capabilities() if c.endswith(":openai.chat") and c.startswith("wire:")}

    def build_request(self, api, agent, messages):
        if "system" in _roles(messages):
            return {"model": messages[0]["no such key"]}  # the adapter's own bug
        if "developer" in _roles(messages):
            return adapter_bug_runtime.build(messages)  # the runtime's
        return super().build_request(api, agent, messages)


adapter = Adapter()
