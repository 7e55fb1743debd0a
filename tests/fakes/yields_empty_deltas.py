"""Yields every delta.content that is not None, "" included (breaks 8.6/empty-content-not-yielded)."""

from tests.fakes.base import ChatFake
from wireconf.reference_impl.tool_call import ToolCall

BROKEN_RULE = "8.6/empty-content-not-yielded"


class Adapter(ChatFake):
    name = "yields-empty-deltas"

    def process_stream(self, api, agent, events):
        calls = {}
        for chunk in events:
            choice = next((c for c in chunk.choices or [] if c.index in (0, None)), None)
            if choice is None:
                continue
            delta = choice.delta
            if delta.content is not None:
                yield delta.content
            for tc in delta.tool_calls or []:
                call = calls.setdefault(tc.index, {"id": tc.id, "name": tc.function.name, "arguments": ""})
                call["arguments"] += tc.function.arguments or ""
            if delta.refusal:
                raise ValueError("Model refused: " + delta.refusal)
        for index in sorted(calls):
            yield ToolCall(**calls[index])


adapter = Adapter()
