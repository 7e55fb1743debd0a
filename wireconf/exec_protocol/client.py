"""The harness's side of the exec protocol: an adapter object that runs each call in a runtime process.

The process is started once (its ``hello`` gives name, version and capabilities) and serves one call
at a time, in a network namespace of its own where the machine allows it (``wireconf.cassettes.netns``:
nothing it runs reaches the network). When it dies during a call, that case is an error with the exit
status and the end of its stderr, and the next case starts a fresh process (which must say the same
hello). The case's time limit (``time_limit``) bounds everything the harness waits for: an answer, a
write the runtime does not read, and a restart's hello (``ready``); when it passes, the process is
killed, so that an answer meant for one case can never reach another. A runtime that cannot be
restarted twice in a row is given up on: the remaining cases are errors at once.

``WIRECONF_EXEC_TRANSCRIPT=FILE`` appends every message, both ways, to FILE as JSON lines
``{"from": "harness"|"runtime", "message": {...}}`` (the tests validate them against the schema).
"""

from __future__ import annotations

import array
import collections
import contextlib
import functools
import itertools
import json
import logging
import os
import queue
import select
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from wireconf.adapter_contract import Inexpressible
from wireconf.case_abort import CaseTimeout, RunnerEnded
from wireconf.cassettes.downloads import Downloads, refused
from wireconf.error_categories import CATEGORIES
from wireconf.errors import NotJudged, WireconfError
from wireconf.exec_protocol import launch
from wireconf.exec_protocol.http_bridge import HttpBridge
from wireconf.exec_protocol.messages import (
    ProtocolError,
    check,
    chunk_json,
    decode,
    encode,
    error_payload,
    recorded_json,
    remote_exception,
    to_json,
    writing,
)
from wireconf.kinds.kind import AdapterMethod, Kind
from wireconf.kinds.registry import KINDS
from wireconf.providers.registry import PROVIDER_OF
from wireconf.report_text import cut_note
from wireconf.sdk.origins import Origin, origin_of
from wireconf.stream_probe import StreamProbe
from wireconf.untyped import AdapterResult

_LOG = logging.getLogger(__name__)

HELLO_TIMEOUT = 60.0
MAX_FAILED_RESTARTS = 2
STOP_TIMEOUT = 5.0
STDERR_LINES = 40
STDERR_LINE_CHARS = 2000
TRANSCRIPT_ENV = "WIRECONF_EXEC_TRANSCRIPT"


_STREAMED = object()
"""What a call returns when the runtime's result was a stream, whose items were its yields."""


class ExecError(WireconfError):
    """The runtime process cannot be started or did not say a valid hello."""


START_HINT = "install the program or give its path; COMMAND runs from the folder pytest runs in"
HELLO_HINT = (
    "a runtime writes a hello as its first line on stdout (docs/adapters.md, Out-of-process runtimes; "
    "wireconf exec-schema prints the messages' schema); its stderr is shown above, if it wrote any"
)


class RuntimeCrashed(RunnerEnded):
    """The runtime process died while it handled a call; the process is restarted for the next case."""


class _Silent(Exception):
    """The runtime did not answer (or read) in time."""


AHEAD_WRITE_LIMIT = 5.0
"""Seconds a call sent ahead may take to write (it is only written when the pipe has room for it)."""


@dataclass
class _Ahead:
    """One adapter call of a case, written before the case runs (protocol 3's ``ahead``): the call and,
    for a streamed argument, its events, built once (the stream is read once), so that they can be
    written again, with a new id, to a process started after the one they went to was stopped."""

    method: str
    messages: list[dict[str, Any]]
    downloads: Downloads
    probe: StreamProbe | None
    marks: list[int] = field(default_factory=list)
    """Where the harness's probe stood after each event (``_batches``)."""
    id: int = 0
    process: _Process | None = None
    """The process it was written to (its answer comes from there), or ``None``: not written yet."""


class _Process:
    """One running runtime process: its pipes, a reader thread for stdout and the tail of stderr."""

    def __init__(self, argv: list[str], cwd: str | None) -> None:
        try:
            self.popen = launch.take(argv, cwd) or launch.popen(argv, cwd)
        except OSError as exc:
            raise ExecError(f"cannot start {shlex.join(argv)}: {exc}", hint=START_HINT) from exc
        assert self.popen.stdin is not None
        self._stdin = self.popen.stdin.fileno()
        self._bounded = os.name == "posix"  # select() on a pipe: POSIX only
        if self._bounded:
            os.set_blocking(self._stdin, False)
        self.lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.warming = False
        """Said ``warming`` in its hello and has not said ``warm`` yet."""
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.ahead: dict[int, _Ahead] = {}
        """Calls sent before their case ran, by id, not answered yet (``ahead``)."""
        self.buffered: dict[int, collections.deque[dict[str, Any]]] = {}
        """What the runtime sent for a call sent ahead while the harness waited for an earlier one."""
        self.orphans: dict[int, Downloads] = {}
        """Calls sent ahead whose case did not claim them (skipped, or it called otherwise): their
        answers are read and dropped, their media downloads still answered, so that the conversation
        stays in step."""
        threading.Thread(target=self._read_stdout, daemon=True, name="wireconf-exec-out").start()
        threading.Thread(target=self._read_stderr, daemon=True, name="wireconf-exec-err").start()

    def _read_stdout(self) -> None:
        assert self.popen.stdout is not None
        with self.popen.stdout as out:
            for line in out:
                if line.strip():
                    self.lines.put(line)
        self.lines.put(None)

    def _read_stderr(self) -> None:
        """Keep the last ``STDERR_LINES`` lines, each cut to ``STDERR_LINE_CHARS`` as it is read (a
        runtime may write hundreds of megabytes on one line before it crashes)."""
        assert self.popen.stderr is not None
        with self.popen.stderr as err:
            while first := err.readline(STDERR_LINE_CHARS):
                line, cut = first, 0
                while not line.endswith("\n") and (line := err.readline(STDERR_LINE_CHARS)):
                    cut += len(line.removesuffix("\n"))
                self.stderr.append(first.rstrip("\n") + (cut_note(cut) if cut else ""))

    def send(self, line: str, deadline: float | None = None) -> None:
        """Write one line; raises ``_Silent`` when the runtime has not read it by ``deadline``."""
        data = memoryview((line + "\n").encode("utf-8"))
        while data and not self._bounded:  # elsewhere a write the runtime does not read blocks
            data = data[os.write(self._stdin, data) :]
        while data:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            _, writable, _ = select.select([], [self._stdin], [], wait)
            if not writable:
                raise _Silent
            try:
                data = data[os.write(self._stdin, data) :]
            except BlockingIOError:
                continue

    def room(self) -> int | None:
        """Bytes that can be written now without blocking (Linux: the pipe's size less what the runtime
        has not read yet); ``None`` where that cannot be known."""
        if not sys.platform.startswith("linux"):
            return None
        import fcntl
        import termios

        try:
            size = fcntl.fcntl(self._stdin, fcntl.F_GETPIPE_SZ)
            unread = array.array("i", [0])
            fcntl.ioctl(self._stdin, termios.FIONREAD, unread)
        except OSError:
            return None
        return max(0, size - unread[0])

    def receive(self, timeout: float | None = None) -> str | None:
        """The next line, or ``None`` once stdout is closed (the process is gone); raises ``_Silent``
        after ``timeout``."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise _Silent from None

    def status(self) -> str:
        try:
            code = self.popen.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return "closed its stdout"
        return f"exited with status {code}" if code >= 0 else f"was killed by signal {-code}"

    def stderr_tail(self) -> str:
        lines = list(self.stderr)
        return ("; its last stderr lines:\n    " + "\n    ".join(lines)) if lines else ""

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait()
        if self.popen.stdin is not None:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()


class ExecAdapter:
    """An adapter whose calls run in another process (``--impl exec:COMMAND``)."""

    def __init__(self, command: str, cwd: str | None = None) -> None:
        self.command = command
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:  # an unclosed quote, a trailing escape
            raise ExecError(
                f"exec:{command} is not a command line: {exc}",
                hint="quote it as a POSIX shell would (wireconf splits it with shlex, runs no shell)",
            ) from None
        if not self.argv:
            raise ExecError("exec: needs a command", hint="--impl exec:COMMAND, e.g. exec:node my_runtime.js")
        self.cwd = cwd
        self.restarts = 0
        self._failed_restarts = 0
        self._given_up: str | None = None
        self._deadline: float | None = None
        self._limit: float | None = None
        self._started = 0.0
        self._ids = itertools.count(1)
        self._in_flight: _Process | None = None
        self._process: _Process | None  # None once stopped: the next call starts a new one
        self._transcript = os.environ.get(TRANSCRIPT_ENV)
        if shutil.which(self.argv[0], path=os.environ.get("PATH")) is None and not os.access(
            self.argv[0], os.X_OK
        ):
            raise ExecError(
                f"cannot start {shlex.join(self.argv)}: no such program {self.argv[0]!r}", hint=START_HINT
            )
        self._argv, self.network = launch.command_argv(command)
        started = time.monotonic()
        self._process, hello = self._start()
        self._first_start = time.monotonic() - started
        self._first_warm = 0.0
        self.name = str(hello["name"])
        self.version = str(hello["version"])
        self._capabilities = frozenset(str(c) for c in hello["capabilities"])
        self._hello = hello
        self._recorded_inputs = hello.get("inputs") == "recorded"
        self._pipeline = hello.get("pipeline") is True
        self.sends_ahead = hello.get("ahead") is True
        """Protocol 3's ``ahead``: the harness may write the next cases' calls while this one runs."""
        self._capture: list[_Ahead] | None = None
        self._sent_ahead: dict[str, list[_Ahead]] = {}
        """The calls of the cases sent ahead, by case, in the order they run."""
        self._claims: collections.deque[_Ahead] = collections.deque()
        # the methods of the contract, generated from the kinds; the optional ones exist on this proxy
        # only when the runtime has them, as in-process
        optional = set(hello.get("optional") or ())
        for kind in KINDS.values():
            if kind.exec_protocol is not None and kind.method is not None:
                setattr(self, kind.method.name, self._bind(kind, kind.method))
            for method in kind.optional_methods:
                if method.name in optional:
                    setattr(self, method.name, self._bind(kind, method))

    # -- the adapter contract ------------------------------------------------------------------------

    def capabilities(self) -> set[str]:
        return set(self._capabilities)

    def _bind(self, kind: Kind[Any, Any], method: AdapterMethod) -> Callable[..., Any]:
        """The proxy of one adapter method, from its description: its arguments by name; an SDK object
        sent as its provider's JSON (named in ``sdk``); an SDK stream pulled event by event (named in
        ``stream``); an SDK client described, the runtime's HTTP sent through it (``HttpBridge``,
        protocol 2); the items of a method that yields streamed back as they come."""

        def call(*arguments: Any) -> Any:
            api = arguments[0] if method.takes_api else None
            values = arguments[1:] if method.takes_api else arguments
            args: dict[str, Any] = {}
            sdk: list[str] = []
            stream: tuple[str, Iterable[object]] | None = None
            bridge: HttpBridge | None = None
            for name, value in zip(method.params, values, strict=True):
                if name == method.http_client:
                    provider = PROVIDER_OF.get(api) if api else None
                    bridge = HttpBridge(value, provider.version_path if provider else "")
                    args[name] = bridge.description
                elif name in method.sdk and isinstance(value, Mapping):
                    args[name] = value  # plain data (response_as: mapping), sent as it is, not in `sdk`
                elif name in method.sdk and not _is_sdk_object(value):
                    stream = (name, value)
                else:
                    args[name] = value
                    if name in method.sdk:
                        sdk.append(name)
            build = functools.partial(self._call, kind.name, api, method.name, args, sdk, stream)
            exchange = self._exchange(method.name, api, build, bridge)
            if method.yields:
                return exchange
            try:
                first = next(exchange)
            except StopIteration as done:
                return iter(()) if done.value is _STREAMED else done.value
            if method.may_stream:  # a stream result: an iterator of the items the runtime yields
                return itertools.chain([first], exchange)
            exchange.close()
            raise ProtocolError(
                f"{method.name} is not a streaming method, but the runtime sent an item: {first!r}"
            )

        if not method.awaited:
            return call

        async def awaited(*arguments: Any) -> Any:
            """The runtime awaits its own method; this side waits for the answer (the harness runs it
            on its own event loop in the case's worker thread)."""
            return call(*arguments)

        return awaited

    out_of_process = True
    """The harness runs this adapter's cases inline: the adapter bounds its own calls."""

    def ready(self, timeout: float | None = None) -> None:
        """Make sure a process is running and free before a case (a crashed process, or one left busy,
        is replaced), waiting at most ``timeout`` for a restarted process's hello."""
        if self._given_up is not None:
            raise RunnerEnded(self._given_up)
        try:
            self._ensure_running(timeout)
        except ExecError as exc:
            self._failed_restarts += 1
            message = f"the runtime is not ready for this case: {exc}"
            if self._failed_restarts >= MAX_FAILED_RESTARTS:
                self._given_up = (
                    f"the runtime could not be made ready {self._failed_restarts} times in a row, so "
                    f"wireconf gave up restarting it; no later case runs against it (last: {exc})"
                )
                message = f"{message}; {self._given_up}"
            raise RunnerEnded(message) from None
        self._failed_restarts = 0

    @contextlib.contextmanager
    def time_limit(self, seconds: float | None) -> Iterator[None]:
        """Bound every wait of the calls inside the block (one case) by ``seconds`` in all."""
        self._started = time.monotonic()
        self._limit = seconds
        self._deadline = self._started + seconds if seconds else None
        try:
            yield
        finally:
            self._deadline = self._limit = None

    # -- calls sent ahead (protocol 3's ``ahead``) -------------------------------------------------

    def send_ahead(self, case: str, call: Callable[[Any], object]) -> None:
        """Write the calls ``case``'s run will make before it runs, so that the runtime works on them
        while the harness judges and reports the cases before it. ``call`` (the kind's ``Call``) runs
        against this adapter in capture mode: each method builds its messages and answers nothing (a
        method returns ``None``, a stream no items); what ``call`` makes of that is dropped. Only once
        per case; the messages are written now when the process is idle and its pipe has room, else
        later (``flush``) or when the case claims them."""
        if not self.sends_ahead or case in self._sent_ahead:
            return
        captured: list[_Ahead] = []
        self._capture = captured
        try:
            call(self)
        except Exception:  # what the call makes of answers it did not get is no verdict
            pass
        finally:
            self._capture = None
        self._sent_ahead[case] = captured
        self.flush()

    def has_sent_ahead(self, case: str) -> bool:
        return case in self._sent_ahead

    def keep_ahead(self, cases: Iterable[str]) -> None:
        """Give up the calls sent ahead for cases other than ``cases`` (a case pytest skipped after all,
        a changed order): their answers are read and dropped as they come (``_Process.orphans``)."""
        keep = set(cases)
        for case in [c for c in self._sent_ahead if c not in keep]:
            for entry in self._sent_ahead.pop(case):
                self._orphan(entry)

    @contextlib.contextmanager
    def claimed(self, case: str) -> Iterator[None]:
        """Within the block (the case's run), each call the case makes takes the answer of the one sent
        ahead for it, in order; the ones it did not make are given up."""
        self._claims = collections.deque(self._sent_ahead.pop(case, ()))
        try:
            yield
        finally:
            for entry in self._claims:
                self._orphan(entry)
            self._claims.clear()

    def flush(self) -> None:
        """Write the calls sent ahead that the running process does not have yet (all of them after a
        restart), in order, while its pipe has room: never a blocking write behind a busy runtime."""
        process = self._process
        if (
            process is None
            or process.warming
            or self._in_flight is not None
            or process.popen.poll() is not None
        ):
            return
        for entries in self._sent_ahead.values():
            for entry in entries:
                if entry.process is process:
                    continue
                lines = [encode({**message, "id": 0}) for message in entry.messages]
                room = process.room()
                if room is not None and sum(len(line.encode("utf-8")) + 12 for line in lines) > room:
                    return
                if not self._write_ahead(process, entry, time.monotonic() + AHEAD_WRITE_LIMIT):
                    return

    def _write_ahead(self, process: _Process, entry: _Ahead, deadline: float | None) -> bool:
        """Write ``entry``'s messages under a new id; a write that fails stops the process (its
        conversation may hold half a line): the calls go again to the next one."""
        entry.id, entry.process = next(self._ids), None
        try:
            for message in entry.messages:
                message["id"] = entry.id
                self._send(process, message, deadline)
        except (OSError, ValueError, _Silent):
            process.kill()
            if process is self._process:
                self._process = None
            return False
        entry.process = process
        process.ahead[entry.id] = entry
        return True

    def _orphan(self, entry: _Ahead) -> None:
        process = entry.process
        if process is not None and process.ahead.pop(entry.id, None) is not None:
            process.orphans[entry.id] = entry.downloads
            process.buffered.pop(entry.id, None)

    def _claim(self, method: str) -> _Ahead | None:
        """The call sent ahead that this call of the running case is (the next one of its method)."""
        while self._claims:
            entry = self._claims.popleft()
            if entry.method == method:
                return entry
            self._orphan(entry)
        return None

    def _remaining(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.monotonic())

    def _timed_out(self, process: _Process) -> CaseTimeout:
        process.kill()
        if process is self._process:
            self._process = None
        elapsed = time.monotonic() - self._started
        return CaseTimeout(
            self._limit or 0,
            elapsed,
            f"the runtime did not answer within {self._limit:g} s; its process was stopped after "
            f"{elapsed:.1f} s and is restarted for the next case",
        )

    def close(self) -> None:
        """Ask the process to stop; kill it if it does not within a few seconds."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            self._log("harness", {"type": "stop"})
            process.send(encode({"type": "stop"}), time.monotonic() + STOP_TIMEOUT)
            process.popen.wait(timeout=STOP_TIMEOUT)
        except (OSError, ValueError, subprocess.TimeoutExpired, _Silent):
            pass
        process.kill()

    # -- the process ---------------------------------------------------------------------------------

    def _restart_wait(self, timeout: float) -> float:
        """How long a restart may take: the case's time limit, or twice what the first start took
        (plus a second) when that is longer, since a runtime's start-up is not the case's doing."""
        return max(timeout, round(2 * (self._first_start + self._first_warm) + 1, 1))

    def _start(self, timeout: float | None = None) -> tuple[_Process, dict[str, Any]]:
        process = _Process(self._argv, self.cwd)
        wait = self._restart_wait(timeout) if timeout else HELLO_TIMEOUT
        try:
            try:
                line = process.receive(timeout=wait)
            except _Silent:
                if timeout:
                    raise ExecError(
                        f"the runtime did not say hello within {wait:g} s of its restart (--case-timeout "
                        f"{timeout:g} s, or twice its first start); it was stopped"
                    ) from None
                raise ExecError(f"the runtime said nothing for {wait:g} s") from None
            if line is None:
                raise ExecError(f"the runtime {process.status()} before saying hello{process.stderr_tail()}")
            hello = decode(line)
            self._log("runtime", hello)
            _check_hello(hello)
        except (ExecError, ProtocolError) as exc:
            process.kill()
            raise ExecError(f"{self.command}: {exc.message}", hint=exc.hint or HELLO_HINT) from None
        process.warming = hello.get("warming") is True
        return process, hello

    def _await_warm(self, process: _Process, timeout: float | None = None) -> None:
        """A runtime that said ``warming`` in its hello is still loading (its SDKs): wait for its
        ``warm`` here, before a call, so that its loading is never charged to a case (after a restart,
        no longer than a restart may take)."""
        wait = self._restart_wait(timeout) if timeout else HELLO_TIMEOUT
        started = time.monotonic()
        try:
            try:
                line = process.receive(timeout=wait)
            except _Silent:
                raise ExecError(f"the runtime did not say warm within {wait:g} s of its hello") from None
            if line is None:
                raise ExecError(f"the runtime {process.status()} while warming up{process.stderr_tail()}")
            message = decode(line)
            self._log("runtime", message)
            if message.get("type") != "warm":
                raise ProtocolError(f"after a hello that says `warming`, expected `warm`, got {message}")
        except (ExecError, ProtocolError) as exc:
            process.kill()
            if process is self._process:
                self._process = None
            raise ExecError(f"{self.command}: {exc.message}", hint=exc.hint or HELLO_HINT) from None
        process.warming = False
        if not self._first_warm:
            self._first_warm = time.monotonic() - started

    def _ensure_running(self, timeout: float | None = None) -> _Process:
        stale = self._in_flight
        if stale is not None:  # the previous call was abandoned (timeout): its process cannot be trusted
            stale.kill()
            self._in_flight = None
            if stale is self._process:
                self._process = None
        if self._process is None or self._process.popen.poll() is not None:
            if self._process is not None:
                self._process.kill()
            self._process, hello = self._start(timeout)
            self.restarts += 1
            if (hello["name"], hello["version"], set(hello["capabilities"])) != (
                self.name,
                self.version,
                set(self._capabilities),
            ):
                raise ExecError(
                    f"{self.command}: restarted, but said a different hello: {hello}",
                    hint="a runtime says the same name, version and capabilities every time it starts",
                )
        if self._process.warming:
            # the first process's loading has no earlier start to be measured against: it may take as
            # long as a start may (HELLO_TIMEOUT), or a runtime whose hello is quick and whose SDK imports
            # take over the case's time limit would fail its first case; a restart's, as long as a
            # restart may
            self._await_warm(self._process, timeout if self.restarts else None)
        return self._process

    def _log(self, side: str, message: dict[str, Any]) -> None:
        if self._transcript:
            with open(self._transcript, "a", encoding="utf-8") as out:
                out.write(json.dumps({"from": side, "message": message}, ensure_ascii=False) + "\n")

    def _send(self, process: _Process, message: dict[str, Any], deadline: float | None = None) -> None:
        writing(message, "harness")  # under WIRECONF_EXEC_VALIDATE=1: the record's check, before it goes
        self._log("harness", message)
        process.send(encode(message), deadline if deadline is not None else self._deadline)

    def _answer(self, process: _Process, message: dict[str, Any]) -> None:
        """Send a call, or a message in the middle of one: a runtime gone is a crash, one not reading in
        time a timeout."""
        try:
            self._send(process, message)
        except (OSError, ValueError):
            raise self._crashed(process) from None
        except _Silent:
            raise self._timed_out(process) from None

    def _crashed(self, process: _Process) -> RuntimeCrashed:
        process.kill()
        if process is self._process:
            self._process = None
        return RuntimeCrashed(
            f"the runtime process ({self.command}) {process.status()} while handling this case; "
            f"it is restarted for the next case{process.stderr_tail()}"
        )

    # -- calls -----------------------------------------------------------------------------------------

    def _exchange(
        self,
        method: str,
        api: str | None,
        build: Callable[[], tuple[_Ahead, Iterator[Any] | None]],
        http: HttpBridge | None = None,
    ) -> Generator[Any, None, Any]:
        """One call of ``method``, its messages made by ``build`` (``_call``) unless the call was sent
        ahead: written, answered, its stream events and HTTP requests served until the runtime's answer."""
        if self._capture is not None:  # sent ahead: built now, answered when its case runs
            self._capture.append(build()[0])
            return None
        entry = self._claim(method)
        process = self._ensure_running()
        if not (process.ahead or process.orphans):
            process = self._clean(process)
        events: Iterator[Any] | None = None
        if entry is None:
            with _written_by_harness(method):
                entry, events = build()
        self._in_flight = process
        finished = False  # the runtime answered (result or error): the process is free for the next call
        failed: Exception | None = None  # the stream the harness reads for the runtime raised
        try:
            if entry.process is not process:  # built now, or sent to a process since stopped
                entry.id = next(self._ids)
                for message in entry.messages:
                    message["id"] = entry.id
                    self._answer(process, message)
            process.ahead.pop(entry.id, None)
            call_id, probe, marks = entry.id, entry.probe, entry.marks
            while True:
                reply = self._reply(process, call_id)
                kind_of = reply["type"]
                if kind_of in ("result", "error") and failed is not None:
                    finished = True  # the stream's own error, as the runtime's SDK would have raised it
                    raise failed
                if kind_of == "result":
                    finished = True
                    return _STREAMED if reply.get("streamed") else reply.get("value")
                if kind_of == "error":
                    finished = True
                    error = _error(reply, self._hello.get("categories") is True)
                    if error.get("inexpressible") is True:  # the adapter: this input has no form there
                        raise Inexpressible(str(error.get("message") or "no form in this runtime"))
                    raise remote_exception(error)
                if kind_of == "yield":
                    read = reply.get("read")
                    if probe is not None and marks and isinstance(read, int):  # protocol 3: its SDK's
                        probe.read = marks[max(0, min(read, len(marks) - 1))]  # reading, as if it pulled
                    if failed is None:  # after the stream failed, the runtime's SDK would have raised
                        yield reply.get("item")
                elif kind_of == "next" and events is not None:
                    try:
                        event = next(events)
                    except StopIteration:
                        reply_message = {"type": "end", "id": call_id}
                    except Exception as exc:  # the recorded stream fails (an error event): the SDK raised
                        # the runtime is told the stream ended, and its call is read to its end, so that
                        # its process stays in step for the next case; the call raises the SDK's error
                        failed, events = exc, iter(())
                        reply_message = {"type": "end", "id": call_id}
                    else:
                        sdk_json = PROVIDER_OF[api].sdk_json if api in PROVIDER_OF else None
                        with _written_by_harness(method):
                            written = _event_json(event, sdk_json)
                        reply_message = {"type": "event", "id": call_id, **written}
                    self._answer(process, reply_message)
                elif kind_of == "http":
                    head, chunks = _http_answer(reply.get("request") or {}, entry.downloads, http)
                    if chunks is not None:  # its body is pulled with `next`
                        events = chunks
                    self._answer(process, {"type": "response", "id": call_id, **head})
                else:
                    process.kill()
                    raise ProtocolError(
                        f"unexpected {kind_of!r} message during {method}: {json.dumps(reply)[:200]}"
                    )
        finally:
            # Not finished (abandoned, closed early, crashed): the next call restarts the process.
            if finished and self._in_flight is process:
                self._in_flight = None

    def _call(
        self,
        kind: str,
        api: str | None,
        method: str,
        args: dict[str, Any],
        sdk: list[str],
        stream: tuple[str, Iterable[object]] | None,
    ) -> tuple[_Ahead, Iterator[Any] | None]:
        """A call's messages (with id 0 until written): the call and, under ``pipeline``, its stream's
        events in batches; else the events, pulled with ``next`` as the call runs."""
        sdk_json = PROVIDER_OF[api].sdk_json if api in PROVIDER_OF else None
        downloads = Downloads(args.get("messages"))
        events: Iterator[Any] | None = iter(stream[1]) if stream is not None else None
        probe = _probe_of(stream[1]) if stream is not None else None
        if self._recorded_inputs:
            args, events = _as_recorded(args, sdk, stream)
        message = {
            "type": "call",
            "id": 0,
            "kind": kind,
            "api": api,
            "method": method,
            "args": to_json(args, sdk_json),
            "sdk": sdk,
            "stream": stream[0] if stream is not None else None,
        }
        entry = _Ahead(method, [message], downloads, probe)
        if self._pipeline and events is not None:  # protocol 3: the events go without being asked
            entry.messages.extend(
                {"id": 0, **batch} for batch in _batches(events, sdk_json, probe, entry.marks)
            )
            events = None  # the runtime asks for none of them
        return entry, events

    def _clean(self, process: _Process) -> _Process:
        """The process, or a fresh one if it wrote lines after its last answer (no call was sent ahead)."""
        stray = _pending(process)
        if not stray:
            return process
        # written after the last call's answer: that call's fault, never this one's
        _LOG.warning(
            "the runtime process (%s) wrote %d line(s) on stdout after its answer to the previous call "
            "(first: %.200s); it was restarted, so that this case starts on a clean conversation "
            "(a runtime's own output goes to stderr)",
            self.command,
            len(stray),
            stray[0].strip(),
        )
        self._process = None if process is self._process else self._process
        process.kill()
        return self._ensure_running()

    def _reply(self, process: _Process, call_id: int) -> dict[str, Any]:
        """The runtime's next message for call ``call_id``. Messages of calls sent after it come first
        when it was written after them (a call the case made that was not sent ahead): those of a call
        sent ahead wait for their case (its media downloads answered at once), those of a call given
        up are dropped; any other is a protocol error, and the process is stopped."""
        waiting = process.buffered.get(call_id)
        if waiting:
            return waiting.popleft()
        while True:
            try:
                line = process.receive(self._remaining())
            except _Silent:
                raise self._timed_out(process) from None
            if line is None:
                raise self._crashed(process)
            try:
                reply = decode(line)
                self._log("runtime", reply)
                other = reply.get("id")
                if other == call_id:
                    return reply
                ahead = process.ahead.get(other) if isinstance(other, int) else None
                # `other` may be any JSON (a runtime's mistake): a lookup that finds nothing, not a crash
                downloads = ahead.downloads if ahead is not None else process.orphans.get(other)  # type: ignore[arg-type]
                if downloads is None:
                    raise ProtocolError(f"expected a message for call {call_id}, got {line.strip()[:200]}")
            except ProtocolError:
                self._process = None if process is self._process else self._process
                process.kill()
                raise
            assert isinstance(other, int)
            if reply["type"] == "http":  # a media download: answered now, the runtime waits for it
                head, _ = _http_answer(reply.get("request") or {}, downloads, None)
                self._answer(process, {"type": "response", "id": other, **head})
            elif ahead is not None:
                process.buffered.setdefault(other, collections.deque()).append(reply)
            elif reply["type"] == "next":  # a call given up reads no more of its stream
                self._answer(process, {"type": "end", "id": other})
            elif reply["type"] in ("result", "error"):
                del process.orphans[other]


@contextlib.contextmanager
def _written_by_harness(method: str) -> Iterator[None]:
    """Writing a call's input as JSON is the harness's work: what fails in it (an SDK object pydantic
    cannot dump, a warning made an error by ``-W error``) leaves the case unjudged, never a verdict on
    the runtime, which has not been called."""
    try:
        yield
    except WireconfError:
        raise
    except Exception as exc:
        raise NotJudged(
            f"the harness could not write the input of {method} as JSON for the runtime: {exc!r}"
        ) from exc


def _http_answer(
    request: dict[str, Any], downloads: Downloads, http: HttpBridge | None
) -> tuple[dict[str, Any], Iterator[bytes] | None]:
    """The ``response`` fields for an ``http`` request: a download of a media URL the call's input
    names gets its fixture (``wireconf.cassettes.downloads``), any other request goes through the e2e
    bridge when the call has one, else it is refused as a network attempt (kept: the case is an error)."""
    method, url = str(request.get("method", "GET")), str(request.get("url", ""))
    found = downloads.lookup(url) if method.upper() in ("GET", "HEAD") else None
    if found is not None:
        headers: dict[str, list[str]] = {}
        for name, value in found.headers:
            headers.setdefault(name, []).append(value)
        return recorded_json(found.status, headers, found.body), None
    if http is not None:
        return http.send(request)
    return {"error": str(refused(url))}, None


BATCH_EVENTS = 64
"""Stream events per ``events`` message (protocol 3): a few lines for a stream, none of them huge."""


def _event_json(event: Any, sdk_json: Callable[[Any], Any] | None) -> dict[str, Any]:
    """One stream event as it crosses: raw bytes (recorded inputs, an e2e body) as a ``chunk``, an SDK
    event as the provider's JSON."""
    return chunk_json(event) if isinstance(event, bytes) else {"event": to_json(event, sdk_json)}


def _batches(
    events: Iterator[Any], sdk_json: Callable[[Any], Any] | None, probe: StreamProbe | None, marks: list[int]
) -> Iterator[dict[str, Any]]:
    """A call's stream as protocol 3 sends it: ``events`` messages of up to ``BATCH_EVENTS`` each, then
    ``end``, which carries the error the harness's SDK raised reading the recorded stream (an error
    event), for the runtime's SDK to raise where it reads on. ``marks`` gets where ``probe`` stood
    before the first event and after each pull (the end counted as one): a runtime that says it had
    pulled ``k`` is where the harness's probe would be had it pulled them one by one."""
    batch: list[dict[str, Any]] = []
    end: dict[str, Any] = {"type": "end"}
    marks.append(probe.read if probe is not None else 0)
    while True:
        try:
            event = next(events)
        except StopIteration:
            break
        except Exception as exc:
            end["error"] = error_payload(exc, categories=True)  # its category too, to raise as it came
            break
        finally:
            marks.append(probe.read if probe is not None else 0)
        batch.append(_event_json(event, sdk_json))
        if len(batch) == BATCH_EVENTS:
            yield {"type": "events", "events": batch}
            batch = []
    if batch:
        yield {"type": "events", "events": batch}
    yield end


def _probe_of(stream: object) -> StreamProbe | None:
    """The probe that counts the events of a stream the harness parsed (``None`` for any other)."""
    origin = origin_of(stream)
    return origin.probe if origin is not None else None


def _pending(process: _Process) -> list[str]:
    """Lines the process wrote that no call has read (stdout closing, ``None``, is left for the call)."""
    lines: list[str] = []
    while True:
        try:
            line = process.lines.get_nowait()
        except queue.Empty:
            return lines
        if line is None:
            process.lines.put(None)
            return lines
        lines.append(line)


def _recorded(sdk_object: object, name: str) -> Origin:
    """Where the harness got ``sdk_object`` from; ``NotJudged`` for an object it did not parse itself."""
    origin = origin_of(sdk_object)
    if origin is None:
        raise NotJudged(
            f"the runtime asked for recorded inputs, but `{name}` ({type(sdk_object).__name__}) was not "
            "parsed by the harness from a recorded response"
        )
    return origin


def _as_recorded(
    args: dict[str, Any], sdk: list[str], stream: tuple[str, Iterable[object]] | None
) -> tuple[dict[str, Any], Iterator[bytes] | None]:
    """``inputs: recorded`` (protocol 2): each SDK argument as the response it was parsed from, and a
    streamed argument as its head in ``args`` with its events pulled from the same probe the SDK object
    reads (each one counted as read, as in-process), as raw bytes."""
    args = dict(args)
    for name in sdk:
        recorded = _recorded(args[name], name).recorded
        args[name] = recorded_json(recorded.status, recorded.headers, recorded.body)
    if stream is None:
        return args, None
    name, sdk_stream = stream
    origin = _recorded(sdk_stream, name)
    assert origin.probe is not None, f"`{name}` is not a stream"
    args[name] = recorded_json(origin.recorded.status, origin.recorded.headers, None)
    return args, origin.probe.chunks()


def _is_sdk_object(value: AdapterResult) -> bool:
    """An SDK response (a pydantic model) rather than a stream of events."""
    return hasattr(type(value), "model_fields")


def _error(reply: dict[str, Any], categories: bool) -> dict[str, Any]:
    """An error message's ``error``, its ``category`` checked: only after a hello that says
    ``categories``, one of ``wireconf.error_categories.CATEGORIES`` or null, ``status`` an HTTP status."""
    error = reply.get("error") or {}
    if "category" not in error and "status" not in error:
        return error
    if not categories:
        raise ProtocolError(
            f"an error's `category` needs a hello that says `categories: true` (protocol 2): {reply}"
        )
    category, status = error.get("category"), error.get("status")
    if category is not None and category not in CATEGORIES:
        raise ProtocolError(f"unknown error category {category!r} (known: {', '.join(CATEGORIES)}): {reply}")
    if status is not None and (type(status) is not int or not 100 <= status <= 599):
        raise ProtocolError(f"an error's `status` is an HTTP status (100-599): {reply}")
    return error


def _check_hello(hello: dict[str, Any]) -> None:
    """The first message is a hello that fits its record (``records.Hello``: its rules by version)."""
    if hello.get("type") != "hello":
        raise ProtocolError(f"the first message must be a hello, got {hello}")
    check(hello, "runtime")
