"""The exec protocol's messages as records: one pydantic model per message, the single source of
``schema.json``, of ``js/protocol.d.ts`` and of the JavaScript client's validator, and what the harness
validates every message it reads against.

Each record's docstring is the message's normative text (the schema's ``description``); a field a
protocol version added says so (``since``), and ``Hello`` holds the rules by version in one validator.
``hello.py`` (``Hello``), ``call.py`` (``Call``), ``stream.py`` (``Next``, ``Event``, ``Events``,
``End``, ``Ack``), ``answer.py`` (``Yield``, ``Result``, ``Error``), ``bridge.py`` (``Http``,
``Response``: protocols 2-3), ``control.py`` (``Stop``, ``Warm``), ``union.py`` (each side's messages,
told apart by ``type``).
"""

from wireconf.exec_protocol.records.answer import Error, ErrorPayload, Result, Yield
from wireconf.exec_protocol.records.bridge import Http, HttpRequest, Recorded, RecordedHead, Response
from wireconf.exec_protocol.records.call import Call
from wireconf.exec_protocol.records.control import Stop, Warm
from wireconf.exec_protocol.records.hello import Hello
from wireconf.exec_protocol.records.stream import Ack, BatchedEvent, End, Event, Events, Next
from wireconf.exec_protocol.records.union import (
    ADAPTERS,
    EVERY,
    HARNESS_RECORDS,
    RUNTIME_RECORDS,
    HarnessMessage,
    Message,
    RuntimeMessage,
    Sender,
    problems,
)

__all__ = [
    "ADAPTERS",
    "EVERY",
    "HARNESS_RECORDS",
    "RUNTIME_RECORDS",
    "Ack",
    "BatchedEvent",
    "Call",
    "End",
    "Error",
    "ErrorPayload",
    "Event",
    "Events",
    "HarnessMessage",
    "Hello",
    "Http",
    "HttpRequest",
    "Message",
    "Next",
    "Recorded",
    "RecordedHead",
    "Response",
    "Result",
    "RuntimeMessage",
    "Sender",
    "Stop",
    "Warm",
    "Yield",
    "problems",
]
