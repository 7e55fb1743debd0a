"""``convert`` (seed 004, the response converter): a response or stream → normalised messages.

The adapter gets the official SDK's response object (``stream: false``) or its stream object
(``stream: true``) and returns the messages the converter emits: one consolidated message for a
response; for a stream, the partial messages (``delta: true``) and then one consolidated message
(``delta: false``). Message shape: docs/seeds.md.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import CaseBase, Response
from wireconf.kinds.base import HarnessContext, runtime_input
from wireconf.kinds.kind import AdapterMethod, Call, Kind

CONVERT = AdapterMethod("convert", ("response", "stream"), sdk=("response",), collects=True)


class ConvertCase(CaseBase):
    """A provider response or stream (official SDK objects) → the converter's messages."""

    kind: Literal["convert"]
    response: Response
    stream: bool = Field(default=False, description="The response is an event stream (the SDK's stream)")


class ConvertKind(Kind[ConvertCase, None]):
    name = "convert"
    unparsed_inputs = True
    case_model = ConvertCase
    noun = "list of messages"
    method = CONVERT

    def prepare(self, ctx: HarnessContext, case: LoadedCase[ConvertCase]) -> Call[None]:
        stream = case.model.stream
        response, probe = runtime_input(ctx, case, case.model.response, stream=stream)
        method = CONVERT
        return lambda adapter: method.invoke(
            adapter, case.api, response, stream, probes=[probe] if probe else []
        )


KIND = ConvertKind()
