"""The reference behind a minimal adapter: no process_async and no set_tool_registry."""

from wireconf.reference_impl.adapter import ReferenceAdapter

_reference = ReferenceAdapter()


class Adapter:
    name = "without-optional-methods"
    version = "0.0.1"

    def capabilities(self):
        return {
            c
            for c in _reference.capabilities()
            if c.split(":")[0] in ("wire", "process", "stream", "concept")
        }

    def build_request(self, api, agent, messages):
        return _reference.build_request(api, agent, messages)

    def process(self, api, agent, response):
        return _reference.process(api, agent, response)

    def process_stream(self, api, agent, events):
        return _reference.process_stream(api, agent, events)


adapter = Adapter()
