"""A call's streamed argument: pulled event by event (``next``), or sent unasked in batches
(``events``, protocol 3's ``pipeline``), then ``end``; and protocol 4's ``ack``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from wireconf.core.untyped import JSON
from wireconf.exec_protocol.records.answer import ErrorPayload
from wireconf.exec_protocol.records.base import CallId, Record

_ONE_OF = {"oneOf": [{"required": ["event"]}, {"required": ["chunk"]}]}


def _not_one_of_event_and_chunk(data: Any) -> bool:
    return isinstance(data, dict) and ("event" in data) == ("chunk" in data)


_ONE = "carries exactly one of `event` (the provider's JSON) and `chunk` (recorded bytes)"


class Next(Record):
    """runtime → harness: send the next event of the streamed argument."""

    type: Literal["next"] = "next"
    id: CallId


class BatchedEvent(Record, json_schema_extra=_ONE_OF):
    """One event of an `events` batch: as an `event` message's `event`, or `chunk` and `encoding` with
    `inputs: recorded`."""

    event: JSON = None
    chunk: str | None = None
    encoding: Literal["base64"] | None = None

    @model_validator(mode="before")
    @classmethod
    def _exactly_one(cls, data: Any) -> Any:
        if _not_one_of_event_and_chunk(data):
            raise ValueError(_ONE)
        return data


class Event(BatchedEvent):
    """harness → runtime: one stream event, as the provider's JSON (`event`), or with `inputs:
    recorded` as the recorded bytes of one server-sent event, its blank line included (`chunk`: UTF-8
    text, or base64 with `encoding`)."""

    type: Literal["event"] = "event"
    id: CallId


class Events(Record):
    """harness → runtime, protocol 3 after a hello that says `pipeline`: the next events of the call's
    streamed argument, in order, sent without a `next` (each as an `event` message's `event`, or
    `chunk` and `encoding` with `inputs: recorded`); the runtime hands them to its SDK as it reads on,
    and an `end` follows the last batch."""

    type: Literal["events"] = "events"
    id: CallId
    events: list[BatchedEvent]


class End(Record):
    """harness → runtime: the stream has no more events. `error` (protocol 3, `pipeline`): the recorded
    stream fails there (an error event, which the harness's SDK raised as an exception, described as in
    an `error` message): the runtime's SDK raises it where it reads on."""

    type: Literal["end"] = "end"
    id: CallId
    error: ErrorPayload | None = None


class Ack(Record):
    """runtime → harness, protocol 4: the runtime has consumed every event of the call's streamed
    argument it was given; send the rest. The harness holds a stream's last event (and its `end`) until
    this `ack`, so that whether the runtime yielded before reading to the end is what the harness
    released, never the runtime's word."""

    type: Literal["ack"] = "ack"
    id: CallId = Field(description="The call whose events were consumed")
