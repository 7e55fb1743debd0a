"""What crosses the pipe from the runner process to the pytest process, read as results only."""

from __future__ import annotations

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


def receive(conn: Connection) -> JSON:
    """The next message from the runner process, read as plain data, ``CaseResult``s and
    ``Difference``s only: a runtime shares that process and can write to the pipe, and the pytest
    process must never run what it wrote (``Connection.recv`` would unpickle anything). Raises
    ``EOFError`` / ``OSError`` as ``recv`` does, and ``pickle.UnpicklingError`` for anything else."""
    return loads_only(conn.recv_bytes(), FROM_THE_RUNNER)


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
