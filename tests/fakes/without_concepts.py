"""A runtime with no MCP client and no notion of tool bindings: it declares every concept but those two,
so the cases that need them are unsupported (never failed, never passed)."""

from tests.fakes.base import FakeAdapter

LACKS = ("concept:mcp-tools", "concept:tool-bindings")


class Adapter(FakeAdapter):
    name = "without-concepts"

    def capabilities(self):
        return super().capabilities() - set(LACKS)


adapter = Adapter()
