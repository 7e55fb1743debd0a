"""What crosses the pipe from the runner process to the pytest process, read as results only."""

from __future__ import annotations

import contextlib
import math
import os
import pickle
import select
import socket
import struct
from multiprocessing.connection import Connection, Pipe
from typing import Literal

from wireconf.core.differences import Difference, Line
from wireconf.core.errors import WireconfError
from wireconf.core.safe_pickle import loads_only
from wireconf.core.untyped import JSON
from wireconf.pytest_plugin.case_run import CaseResult

Status = Literal["judged", "error", "skipped", "unsupported"]


def runner_pipe(unread: int) -> tuple[Connection, Connection]:
    """The pytest process's end and the runner's, the runner's able to hold ``unread`` bytes of results
    nobody has read yet (``SO_SNDBUF``, which the kernel caps at ``net.core.wmem_max``)."""
    ours, theirs = Pipe()
    with contextlib.suppress(OSError), socket.socket(fileno=os.dup(theirs.fileno())) as end:
        end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, unread)  # the socket itself, not the copy
    return ours, theirs


_RESULT_FIELDS = (
    *("status", "message", "lines", "attempts", "recorded", "watched", "changed", "unknown"),
    *("stdout", "stderr", "logs", "runtime_seconds"),
)
"""``CaseResult``'s fields in their order (``result_of`` unpacks them so; a test holds it to the class)."""
_DIFFERENCE_FIELDS = (
    *("subject", "path", "change", "text", "shape", "variant", "indent", "expected", "actual"),
    "constraint",
)
"""``Difference``'s fields in their order (``_difference_data``, ``Difference(*fields)``; a test holds it
to the class)."""
_STATUSES: dict[str, Status] = {
    "judged": "judged",
    "error": "error",
    "skipped": "skipped",
    "unsupported": "unsupported",
}
"""A result's statuses, each as its own type (what a status read from the pipe is checked against)."""


def _difference_data(line: Line) -> JSON:
    if isinstance(line, str):
        return line
    d = line
    return (
        d.subject,
        d.path,
        d.change,
        d.text,
        d.shape,
        d.variant,
        d.indent,
        d.expected,
        d.actual,
        d.constraint,
    )


def result_data(result: CaseResult) -> tuple[JSON, ...]:
    """``result`` as plain data (its fields in order, a ``Difference`` as the tuple of its own): what
    the pytest process reads back with no class built from the pipe (``result_of``), cheaper to pickle
    and to read than the dataclasses (a class looked up by name, its state set)."""
    r = result
    lines = [_difference_data(line) for line in r.lines]
    return (
        r.status,
        r.message,
        lines,
        r.attempts,
        r.recorded,
        r.watched,
        r.changed,
        r.unknown,
        r.stdout,
        r.stderr,
        r.logs,
        r.runtime_seconds,
    )


def _refuse(what: str) -> StrayMessage:
    return StrayMessage(f"a case's result whose {what}")


def _line_of(data: JSON) -> Line:
    if type(data) is str:
        return data
    if type(data) is not tuple or len(data) != len(_DIFFERENCE_FIELDS):
        raise _refuse("line is neither text nor a difference")
    subject, path, change, text, shape, variant, indent, _, _, constraint = data  # its values: plain data
    if (
        {type(subject), type(path), type(change), type(text), type(shape), type(indent)} != {str}
        or (variant is not None and type(variant) is not str)
        or not (constraint is None or (type(constraint) is tuple and {type(c) for c in constraint} == {str}))
    ):
        raise _refuse("difference holds something other than text")
    return Difference(*data)


def result_of(data: JSON) -> CaseResult:
    """The ``CaseResult`` that ``result_data`` made ``data`` of, every field checked for its type (a
    runtime shares the runner process and can write to the pipe); raises ``StrayMessage`` otherwise.
    Checked by a chain of type tests and a set of types for its texts, not field by field: it is read
    for every case, in the process every case waits on."""
    if type(data) is not tuple or len(data) != len(_RESULT_FIELDS):
        raise _refuse("shape is not a result's")
    status, message, lines, attempts, recorded, watched, changed, unknown, out, err, logs, seconds = data
    known = _STATUSES.get(status) if type(status) is str else None
    if known is None or type(seconds) not in (float, int):
        raise _refuse("status or runtime is not one")
    if not (type(message) is str and type(watched) is str and type(out) is str and type(err) is str):
        raise _refuse("texts are not all text")
    if not (
        type(lines) is list
        and type(attempts) is list
        and type(recorded) is list
        and type(changed) is list
        and type(unknown) is list
        and type(logs) is list
    ):
        raise _refuse("lists are not all lists")
    if attempts or recorded or changed or unknown:  # most results have none
        texts = (*attempts, *recorded, *changed, *unknown)
        if {type(text) for text in texts} != {str}:
            raise _refuse("lists of texts hold something else")
    if logs and {type(record) for record in logs} != {dict}:
        raise _refuse("logs are not log records")
    if lines:
        lines = [_line_of(line) for line in lines]
    return CaseResult(
        known, message, lines, attempts, recorded, watched, changed, unknown, out, err, logs, seconds
    )


def send(conn: Connection, message: object) -> None:
    """What the runner process sends (``("done", number, result)`` and the like), framed as
    ``Connection.send`` frames it, pickled by ``pickle.dumps`` as plain data (a result as
    ``result_data``): ``Connection.send``'s pickler copies copyreg's dispatch table for every message,
    half the cost of pickling a small result. Raises as ``pickle.dumps`` does before anything is
    written."""
    if isinstance(message, tuple) and len(message) == 3 and isinstance(message[2], CaseResult):
        message = (*message[:2], result_data(message[2]))
    conn.send_bytes(pickle.dumps(message, pickle.HIGHEST_PROTOCOL))


class Results:
    """The runner process's messages on the pytest process's end of the pipe, framed as
    ``multiprocessing.connection.Connection.send`` frames them, read as plain data only (no class is
    built: a result comes as ``result_data`` and ``check_message`` makes it one): a runtime shares that
    process and can write to the pipe, and the pytest process must never run what it wrote
    (``Connection.recv`` would unpickle anything).

    Read in as few reads as it takes: while the runner works ahead, several results wait in the pipe
    and one read takes them all, where ``Connection.recv_bytes`` makes two reads per message and
    ``poll`` one more (a result already read needs no poll)."""

    CHUNK = 1 << 16
    """Bytes asked of one read: a pipe's whole buffer."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = bytearray()
        self._poller = select.poll()  # one for the runner's life (Connection.poll builds one per call)
        self._poller.register(fd, select.POLLIN)

    def _frame(self) -> tuple[int, int] | None:
        """Where the first message's bytes start and end in the buffer, once they are all there."""
        if len(self._buffer) < 4:
            return None
        (size,) = struct.unpack_from("!i", self._buffer)
        start = 4
        if size == -1:  # a message of 2 GiB or more: its size follows on 8 bytes
            if len(self._buffer) < 12:
                return None
            (size,) = struct.unpack_from("!Q", self._buffer, 4)
            start = 12
        elif size < 0:
            raise StrayMessage(f"a message of size {size} came out of the runner's pipe")
        return (start, start + size) if len(self._buffer) >= start + size else None

    def ready(self, seconds: float | None) -> bool:
        """Whether a message is there, or arrives within ``seconds`` (``None``: wait for one)."""
        if self._frame() is not None:
            return True
        return bool(self._poller.poll(None if seconds is None else max(0, math.ceil(seconds * 1000))))

    def receive(self) -> JSON:
        """The next message, waiting for the rest of it. Raises ``EOFError`` when the runner's end is
        closed, ``OSError`` as a read does, and ``pickle.UnpicklingError`` / ``ValueError`` for
        anything but plain data."""
        while (frame := self._frame()) is None:
            chunk = os.read(self._fd, self.CHUNK)
            if not chunk:
                raise EOFError  # the runner process closed its end of the pipe
            self._buffer += chunk
        start, end = frame
        data = bytes(self._buffer[start:end])
        del self._buffer[:end]
        return loads_only(data, {})


class StrayMessage(WireconfError, ValueError):
    """What came out of the runner's pipe is not a message of the case it runs."""


class RunnerStartError(WireconfError):
    """The case-runner process could not be started (it did not answer, or ended at once)."""


def check_message(message: JSON, number: int) -> str | CaseResult:
    """What ``message`` says: the path of ``("recorded", path)``, or the ``CaseResult`` of
    ``("done", number, result)`` (``result_of``). Raises ``StrayMessage`` (a ``ValueError``) for
    anything else."""
    recording = isinstance(message, tuple) and len(message) == 2 and message[0] == "recorded"
    if recording and isinstance(message[1], str):
        return str(message[1])
    done = isinstance(message, tuple) and len(message) == 3 and message[0] == "done"
    if done and message[1] == number:
        return result_of(message[2])
    raise StrayMessage(
        f"a message of {type(message).__name__} that is neither a recording nor case {number}'s"
    )
