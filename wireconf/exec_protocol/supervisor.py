"""The runtime's life: its start (hello, warm), restarts and how long they may take, giving up, the
case's time limit, the transcript, and its stop.

A process lost in a case (a crash, a timeout) is started again at once, so that it loads while the
harness reports that case; the next case waits for its hello and ``warm`` (``ready``) before its own
time limit starts. How long that may take follows the measured first start, scaled by the machine's
load, never the case's time limit; a restart that misses it is tried once more, and a runtime that
cannot be made ready twice in a row is given up on.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from collections.abc import Iterator
from typing import Any, NoReturn

from wireconf.core.case_abort import CaseTimeout, RunnerEnded
from wireconf.exec_protocol.hello import check_hello
from wireconf.exec_protocol.messages import ProtocolError, decode, encode, writing
from wireconf.exec_protocol.process import ExecError, Process, Silent

HELLO_TIMEOUT = 60.0
MAX_FAILED_RESTARTS = 2
RESTART_FLOOR = 10.0
"""Seconds a restart's hello and warm may always take, however quick the first start was."""
RESTART_SCALE = 3.0
"""A restart may take this many times the first start (and warm-up), scaled by the load."""
STOP_TIMEOUT = 5.0
TRANSCRIPT_ENV = "WIRECONF_EXEC_TRANSCRIPT"
HELLO_HINT = (
    "a runtime writes a hello as its first line on stdout (docs/adapters.md, Out-of-process runtimes; "
    "wireconf exec-schema prints the messages' schema); its stderr is shown above, if it wrote any"
)


class RuntimeCrashed(RunnerEnded):
    """The runtime process died while it handled a call; the process is restarted for the next case."""


def _load() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:  # not every platform can tell
        return 0.0


def restart_bound(first: float, load_then: float, load_now: float) -> float:
    """How long a restart's hello and warm may take: ``RESTART_SCALE`` times the first start (and warm),
    times how much busier the machine is now than then, at least ``RESTART_FLOOR``."""
    ratio = max(1.0, load_now / load_then) if load_then > 0 else 1.0
    return round(max(RESTART_FLOOR, RESTART_SCALE * first * ratio), 1)


class Supervisor:
    """Starts, restarts and stops the runtime process, and bounds the waits of one case."""

    def __init__(self, command: str, argv: list[str], cwd: str | None) -> None:
        self.command = command
        self.argv = argv
        self.cwd = cwd
        self.restarts = 0
        self._failed_restarts = 0
        self._given_up: str | None = None
        self.deadline: float | None = None
        self._limit: float | None = None
        self._started = 0.0
        self.in_flight: Process | None = None
        """The process a call is being answered by (the call did not finish if it is still set)."""
        self._transcript = os.environ.get(TRANSCRIPT_ENV)
        self._load_at_start = _load()
        started = time.monotonic()
        self.process: Process | None  # None once stopped: the next call starts a new one
        self.process, self.hello = self._start(None, restart=False)
        self._first_start = time.monotonic() - started
        self._first_warm = 0.0
        self._restarting = False
        """The current process was started after a loss and has not said its hello yet."""

    # -- before and around a case ----------------------------------------------------------------------

    def ready(self, timeout: float | None = None) -> None:
        """Make sure a process is running and free before a case (a crashed process, or one left busy,
        is replaced), waiting for a restarted process's hello and warm (``restart_wait``)."""
        if self._given_up is not None:
            raise RunnerEnded(self._given_up)
        try:
            self.ensure_running()
        except ExecError:
            self._failed_restarts += 1
            try:
                self.ensure_running()  # a restart that missed its bound is tried once more
            except ExecError as exc:
                self._fail(exc)
        self._failed_restarts = 0

    def _fail(self, exc: ExecError) -> NoReturn:
        self._failed_restarts += 1
        message = f"the runtime is not ready for this case: {exc}"
        if self._failed_restarts >= MAX_FAILED_RESTARTS:
            self._given_up = (
                f"the runtime could not be made ready {self._failed_restarts} times in a row, so "
                f"wireconf gave up restarting it; no later case runs against it (last: {exc})"
            )
            message = f"{message}; {self._given_up}"
        raise RunnerEnded(message) from None

    @contextlib.contextmanager
    def time_limit(self, seconds: float | None) -> Iterator[None]:
        """Bound every wait of the calls inside the block (one case) by ``seconds`` in all."""
        self._started = time.monotonic()
        self._limit = seconds
        self.deadline = self._started + seconds if seconds else None
        try:
            yield
        finally:
            self.deadline = self._limit = None

    def remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def close(self) -> None:
        """Ask the process to stop; kill it if it does not within a few seconds."""
        process, self.process = self.process, None
        if process is None:
            return
        if self._restarting:  # still loading, reading no stdin yet: nothing to wait for
            process.kill()
            return
        try:
            self.log("harness", {"type": "stop"})
            process.send(encode({"type": "stop"}), time.monotonic() + STOP_TIMEOUT)
            process.popen.wait(timeout=STOP_TIMEOUT)
        except (OSError, ValueError, subprocess.TimeoutExpired, Silent):
            pass
        process.kill()

    # -- losing a process ------------------------------------------------------------------------------

    def drop(self, process: Process) -> None:
        """Stop ``process``; when it is the current one, start its successor at once (its hello and warm
        are awaited by the next ``ready``), so that it loads while this case is reported."""
        process.kill()
        if process is not self.process:
            return
        self.process = None
        if self.in_flight is process:
            self.in_flight = None
        try:
            self.process = Process(self.argv, self.cwd)
        except ExecError:
            return  # the next case's `ready` tries again and says why
        self._restarting = True

    def timed_out(self, process: Process) -> CaseTimeout:
        self.drop(process)
        elapsed = time.monotonic() - self._started
        return CaseTimeout(
            self._limit or 0,
            elapsed,
            f"the runtime did not answer within {self._limit:g} s; its process was stopped after "
            f"{elapsed:.1f} s and is restarted for the next case",
        )

    def crashed(self, process: Process) -> RuntimeCrashed:
        self.drop(process)
        return RuntimeCrashed(
            f"the runtime process ({self.command}) {process.status()} while handling this case; "
            f"it is restarted for the next case{process.stderr_tail()}"
        )

    # -- starting ----------------------------------------------------------------------------------------

    def restart_wait(self) -> float:
        """How long a restart's hello and warm may take (``restart_bound``)."""
        return restart_bound(self._first_start + self._first_warm, self._load_at_start, _load())

    def _start(self, process: Process | None, restart: bool) -> tuple[Process, dict[str, Any]]:
        """Read the hello of ``process`` (a new one when ``None``); a restart's wait is bounded by
        ``restart_wait``, the first start's by ``HELLO_TIMEOUT``."""
        process = process or Process(self.argv, self.cwd)
        wait = self.restart_wait() if restart else HELLO_TIMEOUT
        try:
            try:
                line = process.receive(timeout=wait)
            except Silent:
                if restart:
                    raise ExecError(
                        f"the runtime did not say hello within {wait:g} s of its restart ({RESTART_SCALE:g} "
                        "times its first start, scaled by the load); it was stopped"
                    ) from None
                raise ExecError(f"the runtime said nothing for {wait:g} s") from None
            if line is None:
                raise ExecError(f"the runtime {process.status()} before saying hello{process.stderr_tail()}")
            hello = decode(line)
            self.log("runtime", hello)
            check_hello(hello)
        except (ExecError, ProtocolError) as exc:
            process.kill()
            raise ExecError(f"{self.command}: {exc.message}", hint=exc.hint or HELLO_HINT) from None
        process.warming = hello.get("warming") is True
        return process, hello

    def _await_warm(self, process: Process, restart: bool) -> None:
        """A runtime that said ``warming`` in its hello is still loading (its SDKs): wait for its
        ``warm`` here, before a call, so that its loading is never charged to a case. The first
        process's loading has no earlier start to be measured against: it may take ``HELLO_TIMEOUT``."""
        wait = self.restart_wait() if restart else HELLO_TIMEOUT
        started = time.monotonic()
        try:
            try:
                line = process.receive(timeout=wait)
            except Silent:
                raise ExecError(f"the runtime did not say warm within {wait:g} s of its hello") from None
            if line is None:
                raise ExecError(f"the runtime {process.status()} while warming up{process.stderr_tail()}")
            message = decode(line)
            self.log("runtime", message)
            if message.get("type") != "warm":
                raise ProtocolError(f"after a hello that says `warming`, expected `warm`, got {message}")
        except (ExecError, ProtocolError) as exc:
            process.kill()
            if process is self.process:
                self.process = None
            raise ExecError(f"{self.command}: {exc.message}", hint=exc.hint or HELLO_HINT) from None
        process.warming = False
        if not self._first_warm:
            self._first_warm = time.monotonic() - started

    def ensure_running(self) -> Process:
        stale = self.in_flight
        if stale is not None:  # the previous call was abandoned (timeout): its process cannot be trusted
            self.in_flight = None
            stale.kill()
            if stale is self.process:
                self.process = None
        if self.process is not None and self._restarting:
            self._restarting = False
            self._adopt(self.process)
        elif self.process is None or not self.process.alive():
            if self.process is not None:
                self.process.kill()
                self.process = None
            self._adopt(None)
        assert self.process is not None
        if self.process.warming:
            self._await_warm(self.process, self.restarts > 0)
        return self.process

    def _adopt(self, process: Process | None) -> None:
        """Read the hello of a restarted process (``process``, already started, or a new one)."""
        self.process = None
        started, hello = self._start(process, restart=True)
        self.restarts += 1
        if (hello["name"], hello["version"], set(hello["capabilities"])) != (
            self.hello["name"],
            self.hello["version"],
            set(self.hello["capabilities"]),
        ):
            started.kill()
            raise ExecError(
                f"{self.command}: restarted, but said a different hello: {hello}",
                hint="a runtime says the same name, version and capabilities every time it starts",
            )
        self.process = started

    # -- the conversation's writes -----------------------------------------------------------------------

    def log(self, side: str, message: dict[str, Any]) -> None:
        if self._transcript:
            with open(self._transcript, "a", encoding="utf-8") as out:
                out.write(json.dumps({"from": side, "message": message}, ensure_ascii=False) + "\n")

    def send(
        self, process: Process, message: dict[str, Any], deadline: float | None = None, line: str = ""
    ) -> None:
        """Write ``message`` (``line``: its encoding, when the caller has it already)."""
        writing(message, "harness")  # under WIRECONF_EXEC_VALIDATE=1: the record's check, before it goes
        self.log("harness", message)
        process.send(line or encode(message), deadline if deadline is not None else self.deadline)

    def hold(self, process: Process, call_id: int, messages: list[dict[str, Any]]) -> None:
        """Protocol 4: ``messages`` (a stream's last event and ``end``) go once the runtime acks call
        ``call_id``; registered before the call is written, so that no ``ack`` can come first."""
        for message in messages:
            writing(message, "harness")
        process.routes.held[call_id] = [encode(message) for message in messages]

    def release(self, process: Process, call_id: int, messages: list[dict[str, Any]]) -> None:
        """Protocol 4: the runtime's ``ack`` of call ``call_id``, read in its turn: its held ``messages``
        are written now, unless the reader thread wrote them as the ``ack`` came (``Process.release``);
        either way they went after it, and are logged here, in the conversation's order."""
        try:
            process.release(call_id, self.deadline)
        except (OSError, ValueError):
            raise self.crashed(process) from None
        except Silent:
            raise self.timed_out(process) from None
        for message in messages:
            self.log("harness", message)

    def answer(self, process: Process, message: dict[str, Any]) -> None:
        """Send a call, or a message in the middle of one: a runtime gone is a crash, one not reading in
        time a timeout."""
        try:
            self.send(process, message)
        except (OSError, ValueError):
            raise self.crashed(process) from None
        except Silent:
            raise self.timed_out(process) from None
