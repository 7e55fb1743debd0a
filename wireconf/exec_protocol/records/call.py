"""``call``: one adapter call (one case)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from wireconf.exec_protocol.records.base import CallId, Null, Record, UniqueNames
from wireconf.exec_protocol.records.names import BRIDGED, ApiOrNull, KindName, MethodName

_BRIDGE_NOTE = " ".join(
    f"{method.name} (protocol 2): `args` holds `{method.http_client}`, the harness's SDK client described: "
    "`base_url` as the provider's Python SDK takes it (OpenAI's ends in /v1, Anthropic's has no version, as "
    "its TypeScript SDK takes it too; Gemini's ends in /), `origin` (scheme and host) and `api_base_url` "
    "(up to and including the API version: .../v1, .../v1beta, the form most other SDKs take); the runtime "
    "builds its own SDK client on the form its SDK takes and sends its HTTP with `http`. A case asks for a "
    "stream in its agent, `model.options.additionalProperties.stream: true` (every api; on Gemini it "
    "selects the `:streamGenerateContent?alt=sse` route): the runtime sends the request its SDK sends for "
    "a stream, and an event stream's answer is a `response` without `body`, pulled with `next`."
    for method in BRIDGED
)


class Call(Record):
    __doc__ = (
        "harness → runtime: one adapter call (one case). `args` holds the method's arguments by name, as "
        "JSON; an SDK object (a provider response) is sent as the provider's own JSON (with `inputs: "
        "recorded`, as a `recorded` response) and named in `sdk`; an argument of an SDK type that is not "
        "named in `sdk` is plain data (a `response_as: mapping` case: the decoded JSON body, as it is, "
        "whatever `inputs` says); the argument named in `stream` is not in `args` (with `inputs: "
        "recorded`, its `recordedHead` is): its events are pulled with `next` (after a hello that says "
        "`pipeline`, they follow the call unasked, in `events` and `end`). Calls carry only their "
        "method's arguments: a process or stream call has no messages (the response is judged, not the "
        "request). A call ends with its `result` or `error`: no message carries its id after that "
        "(events the runtime did not pull are never sent), but for the rest of a `pipeline` stream the "
        f"call did not read to its end: the runtime skips it. {_BRIDGE_NOTE}"
    ).rstrip()

    type: Literal["call"] = "call"
    id: CallId
    kind: KindName
    api: ApiOrNull = Field(description="null only for a method without an api")
    method: MethodName
    args: dict[str, Any]
    sdk: UniqueNames | None = None
    stream: str | Null = None
