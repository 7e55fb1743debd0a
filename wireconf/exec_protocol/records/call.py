"""``call``: one adapter call (one case), and the endpoint it carries from protocol 4."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from wireconf.exec_protocol.records.base import CallId, Null, Record, UniqueNames, since
from wireconf.exec_protocol.records.names import BRIDGED, ApiName, ApiOrNull, KindName, MethodName

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


class Endpoint(Record):
    """protocol 4, to a runtime whose hello says `endpoints`: where the case's api answers, in the forms a
    runtime is pointed at it. The runtime uses the base URLs the call carries: its own SDK (or any HTTP
    client) calls them and reads the case's recorded bytes; what it sent is what the harness judges."""

    api: ApiName = Field(description="the api this endpoint serves")
    origin: str = Field(
        description="scheme, host and port, where the provider's origin stands (Anthropic's SDK, "
        "google-genai's `base_url` with `api_version` beside it)"
    )
    api_base_url: str = Field(
        description="the origin and the path up to and including the API version (`.../v1`: OpenAI's "
        "SDK, the Vercel AI SDK's providers, most others)"
    )
    api_version: str = Field(
        description="the API version alone (`v1`, `v1beta`), for SDKs that take it apart"
    )
    key: str = Field(
        description="a placeholder API key: give it to the SDK (the real key never reaches the runtime)"
    )
    proxy: str = Field(
        description="a forward proxy (its credentials name the case) that answers the media downloads the "
        "case's input names"
    )
    ca_file: str | Null = Field(
        description="the certificate authority of the proxy's https answers (`SSL_CERT_FILE`, "
        "`NODE_EXTRA_CA_CERTS`); null when the case names no media over https"
    )
    download: str = Field(
        description="the same downloads for a downloader given a `fetch`: `<download>?url=<URL>`"
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
    endpoint: Endpoint | None = Field(
        None,
        json_schema_extra=since(
            4, "protocol 4, after a hello that says `endpoints`: where the case's api answers"
        ),
    )
