"""What crosses the pipe from the runner process to the pytest process, read as results only."""

from __future__ import annotations

import math
import os
import pickle
import select
import struct
from multiprocessing.connection import Connection

from wireconf.differences import Difference
from wireconf.errors import WireconfError
from wireconf.pytest_plugin.case_run import CaseResult
from wireconf.safe_pickle import loads_only
from wireconf.untyped import JSON

FROM_THE_RUNNER = {
    ("wireconf.pytest_plugin.case_run", "CaseResult"): CaseResult,
    ("wireconf.differences", "Difference"): Difference,
}
"""The only classes the pytest process builds from what the runner process sends (besides plain data)."""


def send(conn: Connection, message: object) -> None:
    """What the runner process sends (``("done", number, result)`` and the like), framed as
    ``Connection.send`` frames it, pickled by ``pickle.dumps``: ``Connection.send``'s pickler copies
    copyreg's dispatch table for every message, half the cost of pickling a small result. Raises as
    ``pickle.dumps`` does before anything is written."""
    conn.send_bytes(pickle.dumps(message, pickle.HIGHEST_PROTOCOL))


class Results:
    """The runner process's messages on the pytest process's end of the pipe, framed as
    ``multiprocessing.connection.Connection.send`` frames them, read as plain data, ``CaseResult``s and
    ``Difference``s only: a runtime shares that process and can write to the pipe, and the pytest
    process must never run what it wrote (``Connection.recv`` would unpickle anything).

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
        anything but a message of the allowed classes."""
        while (frame := self._frame()) is None:
            chunk = os.read(self._fd, self.CHUNK)
            if not chunk:
                raise EOFError  # the runner process closed its end of the pipe
            self._buffer += chunk
        start, end = frame
        data = bytes(self._buffer[start:end])
        del self._buffer[:end]
        return loads_only(data, FROM_THE_RUNNER)


class StrayMessage(WireconfError, ValueError):
    """What came out of the runner's pipe is not a message of the case it runs."""


class RunnerStartError(WireconfError):
    """The case-runner process could not be started (it did not answer, or ended at once)."""


def check_message(message: JSON, number: int) -> None:
    """Raises ``StrayMessage`` (a ``ValueError``) unless ``message`` is ``("recorded", path)`` or
    ``("done", number, result)``."""
    recording = isinstance(message, tuple) and len(message) == 2 and message[0] == "recorded"
    if recording and isinstance(message[1], str):
        return
    done = isinstance(message, tuple) and len(message) == 3 and message[0] == "done"
    if done and message[1] == number and isinstance(message[2], CaseResult):
        return
    raise StrayMessage(
        f"a message of {type(message).__name__} that is neither a recording nor case {number}'s"
    )
