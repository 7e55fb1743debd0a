"""Protocols 2-3: recorded HTTP responses as call arguments (``inputs: recorded``) and the HTTP of an
e2e call sent through the harness (``http``, answered by ``response``)."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from wireconf.exec_protocol.records.base import CallId, Null, Record

Headers = dict[str, list[str]]


class RecordedHead(Record):
    """protocol 2, `inputs: recorded`: the status and headers of a recorded stream, as the streamed
    argument in `args`; its body follows as `event` chunks."""

    status: int
    headers: Headers


class Recorded(Record):
    """protocol 2, `inputs: recorded`: a recorded HTTP response, as a call argument: status, headers as
    recorded (name → values), body as UTF-8 text (base64 with `encoding` when it is not UTF-8)."""

    status: int
    headers: Headers
    body: str
    encoding: Literal["base64"] | None = None


class HttpRequest(Record):
    """One HTTP request, byte for byte."""

    method: Annotated[str, Field(min_length=1)]
    url: Annotated[str, Field(min_length=1)]
    headers: Headers
    body: str | Null = None
    encoding: Literal["base64"] | None = None


class Http(Record):
    """runtime → harness, during a call (protocol 2): one HTTP request the runtime sends, byte for byte
    (body as UTF-8 text, or base64 with `encoding`), answered with `response`. A download (GET) of a media
    URL that the call's `messages` name as a part's value is answered with fixture bytes of the part's
    media type, in any call (a runtime that inlines media it downloads); in a call that hands over an SDK
    client, any other request goes through the case's SDK client (cassette replay, or recording);
    anything else is refused as a network attempt (an `error` response; the case is an error, not a
    verdict)."""

    type: Literal["http"] = "http"
    id: CallId
    request: HttpRequest


class Response(
    Record, json_schema_extra={"oneOf": [{"required": ["error"]}, {"required": ["status", "headers"]}]}
):
    """harness → runtime: the answer to `http`: status, headers and body, as a `recorded` response; for an
    event stream, status and headers only (a `recordedHead`), the body pulled with `next` (each `event` a
    `chunk`); `error` when no response came (no recorded interaction matches, the connection failed): the
    runtime's HTTP call fails as on a network error."""

    type: Literal["response"] = "response"
    id: CallId
    status: int | None = None
    headers: Headers | None = None
    body: str | None = None
    encoding: Literal["base64"] | None = None
    error: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _answer_or_error(cls, data: Any) -> Any:
        if isinstance(data, dict):
            answered = "status" in data and "headers" in data
            if ("error" in data) == answered:
                raise ValueError("carries either `error` or `status` and `headers`")
        return data


def text_or_base64(data: bytes, key: str) -> dict[str, str]:
    """``{key: text}`` for UTF-8 bytes (every recorded JSON and SSE body), else base64 with
    ``encoding: base64``: the bytes cross unchanged either way."""
    try:
        return {key: data.decode("utf-8")}
    except UnicodeDecodeError:
        return {key: base64.b64encode(data).decode("ascii"), "encoding": "base64"}


def recorded_json(status: int, headers: Mapping[str, list[str]], body: bytes | None) -> dict[str, Any]:
    """A recorded HTTP response as protocol data (``inputs: recorded``, a ``Recorded``): its status, its
    headers (name → values, as recorded) and its body; ``body=None`` gives the head of a stream (a
    ``RecordedHead``), whose body is pulled event by event (``chunk``)."""
    head: dict[str, Any] = {"status": status, "headers": {k: list(v) for k, v in headers.items()}}
    return head if body is None else {**head, **text_or_base64(body, "body")}
