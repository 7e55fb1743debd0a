"""The messages each side sends, told apart by ``type``; reading a line as one of them."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

from pydantic import Field, TypeAdapter, ValidationError

from wireconf.exec_protocol.records.answer import Error, Result, Yield
from wireconf.exec_protocol.records.base import Record
from wireconf.exec_protocol.records.bridge import Http, Response
from wireconf.exec_protocol.records.call import Call
from wireconf.exec_protocol.records.control import Stop, Warm
from wireconf.exec_protocol.records.hello import Hello
from wireconf.exec_protocol.records.stream import Ack, End, Event, Events, Next

RUNTIME_RECORDS: tuple[type[Record], ...] = (Hello, Warm, Next, Ack, Yield, Result, Error, Http)
"""What a runtime sends."""
HARNESS_RECORDS: tuple[type[Record], ...] = (Call, Event, Events, End, Response, Stop)
"""What the harness sends."""


def _tagged(records: tuple[type[Record], ...]) -> Any:
    """One of ``records``, told apart by ``type``."""
    return Annotated[Union.__getitem__(records), Field(discriminator="type")]


RuntimeMessage = _tagged(RUNTIME_RECORDS)
HarnessMessage = _tagged(HARNESS_RECORDS)
Message = _tagged(RUNTIME_RECORDS + HARNESS_RECORDS)

Sender = Literal["runtime", "harness"]
ADAPTERS: dict[Sender, TypeAdapter[Any]] = {
    "runtime": TypeAdapter(RuntimeMessage),
    "harness": TypeAdapter(HarnessMessage),
}
"""Built once: validating a message costs no model rebuild."""
EVERY = TypeAdapter(Message)


def problems(exc: ValidationError, message: Any) -> str:
    """What is wrong with ``message``, naming its type, each field and the value found there."""
    kind = message.get("type") if isinstance(message, dict) else None
    said = []
    for error in exc.errors(include_url=False):
        if error["type"] == "union_tag_invalid":
            said.append(f"`{kind}` is not a message this side sends")
            continue
        path = _field(message, [str(part) for part in error["loc"]][1:])  # [0]: the union's tag
        if any(f"`{'.'.join(path)}`" in line for line in said):
            continue  # one field, several alternatives refused (a category or null): said once
        text = str(error["ctx"]["error"]) if error["type"] == "value_error" else error["msg"]
        named = _NAMED.match(text)  # a record's own rule names its field first: `status` may be ...
        if named and isinstance(_at(message, path), dict) and named[1] in _at(message, path):
            path.append(named[1])
        value = _at(message, path)
        shown = "" if value is _MISSING or not path else f" = {_short(value)}"
        said.append(f"{'`' + '.'.join(path) + '`' if path else 'the message'}{shown}: {text}")
    return f"`{kind}` message: " + "; ".join(said)


_NAMED = re.compile(r"^(?:hello's )?`([a-z_]+)`")
_MISSING = object()


def _field(message: Any, loc: list[str]) -> list[str]:
    """The path of the field in ``message`` an error is about: pydantic's location, less the names it
    gives the alternatives of a union (the field is where the message stops having its parts); a
    missing field's own name is kept."""
    path: list[str] = []
    for part in loc:
        found = _at(message, [*path, part])
        if found is not _MISSING:
            path.append(part)
            continue
        if isinstance(_at(message, path), dict) and part.isidentifier():
            path.append(part)  # a required field left out
        break
    return path


def _at(message: Any, path: list[str]) -> Any:
    for part in path:
        if isinstance(message, dict) and part in message:
            message = message[part]
        elif isinstance(message, list) and part.isdigit() and int(part) < len(message):
            message = message[int(part)]
        else:
            return _MISSING
    return message


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
