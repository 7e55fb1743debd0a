"""One runtime process: its pipes, a reader thread for stdout, the tail of stderr, bounded writes."""

from __future__ import annotations

import array
import collections
import contextlib
import json
import os
import queue
import select
import shlex
import subprocess
import sys
import threading
import time

from wireconf.core.errors import WireconfError
from wireconf.core.report_text import cut_note
from wireconf.exec_protocol import launch
from wireconf.exec_protocol.routes import Routes
from wireconf.providers.runtime_environ import runtime_environ

STDERR_LINES = 40
STOP_WAIT = 5.0
"""Seconds ``kill`` waits for a write of held lines in progress before it closes the stdin anyway."""
STDERR_LINE_CHARS = 2000
START_HINT = "install the program or give its path; COMMAND runs from the folder pytest runs in"


class ExecError(WireconfError):
    """The runtime process cannot be started or did not say a valid hello."""


class Silent(Exception):
    """The runtime did not answer (or read) in time."""


class Process:
    """One running runtime process: its pipes, a reader thread for stdout and the tail of stderr."""

    def __init__(self, argv: list[str], cwd: str | None) -> None:
        # no provider key (the bridge's transport adds it), the run's selection (what to warm up for)
        env = launch.selection(runtime_environ(os.environ))
        try:
            self.popen = launch.take(argv, cwd, env) or launch.popen(argv, cwd, env)
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
        self.routes = Routes()
        self._writing = threading.Lock()
        """Held by a line's write: the reader thread writes held lines between two, never inside one."""
        self._closed = False
        """Its stdin was closed (``kill``): nothing is written any more."""
        threading.Thread(target=self._read_stdout, daemon=True, name="wireconf-exec-out").start()
        threading.Thread(target=self._read_stderr, daemon=True, name="wireconf-exec-err").start()

    def _read_stdout(self) -> None:
        assert self.popen.stdout is not None
        with self.popen.stdout as out:
            for line in out:
                if line.strip():
                    if self.routes.held and '"ack"' in line:
                        self._acked(line)
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

    def _acked(self, line: str) -> None:
        """Protocol 4, in the reader thread: the lines held for the call an ``ack`` names are written at
        once, so that a runtime working on a call sent ahead goes on with it while the harness judges
        an earlier case (the harness reads the ``ack`` in its turn, validated as every message is, and
        counts what it had released by then). Only when the write cannot block: no line being written,
        and the lines fit one atomic pipe write; otherwise the harness writes them when it reads it."""
        try:
            message = json.loads(line)
        except ValueError:
            return
        if isinstance(message, dict) and message.get("type") == "ack" and type(message.get("id")) is int:
            self.release(message["id"], blocking=False)

    def release(self, call_id: int, deadline: float | None = None, blocking: bool = True) -> None:
        """Write the lines held for ``call_id`` (once, whichever thread asks first). ``blocking``: as
        ``send``; else only if the write cannot block (a write of at most ``PIPE_BUF`` bytes is whole
        or refused), leaving them for the next ``release`` otherwise."""
        if not self._writing.acquire(blocking=blocking):
            return
        try:
            lines = self.routes.held.pop(call_id, None)
            if not lines or self._closed:
                return
            data = "".join(line + "\n" for line in lines).encode("utf-8")
            if blocking:
                self._write(data, deadline)
                return
            if not self._bounded or len(data) > select.PIPE_BUF:
                self.routes.held[call_id] = lines
                return
            try:
                os.write(self._stdin, data)
            except BlockingIOError:
                self.routes.held[call_id] = lines
            except OSError:
                pass  # the process is gone: the harness finds out reading its stdout
        finally:
            self._writing.release()

    def alive(self) -> bool:
        return self.popen.poll() is None

    def send(self, line: str, deadline: float | None = None) -> None:
        """Write one line; raises ``Silent`` when the runtime has not read it by ``deadline``."""
        with self._writing:
            self._write((line + "\n").encode("utf-8"), deadline)

    def _write(self, whole: bytes, deadline: float | None) -> None:
        data = memoryview(whole)
        while data and not self._bounded:  # elsewhere a write the runtime does not read blocks
            data = data[os.write(self._stdin, data) :]
        while data:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            _, writable, _ = select.select([], [self._stdin], [], wait)
            if not writable:
                raise Silent
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
        """The next line, or ``None`` once stdout is closed (the process is gone); raises ``Silent``
        after ``timeout``."""
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            raise Silent from None

    def pending(self) -> list[str]:
        """Lines the process wrote that no call has read (stdout closing, ``None``, is left for the call)."""
        lines: list[str] = []
        while True:
            try:
                line = self.lines.get_nowait()
            except queue.Empty:
                return lines
            if line is None:
                self.lines.put(None)
                return lines
            lines.append(line)

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
        # never while the reader thread writes held lines (``release``), nor after: a closed stdin's
        # descriptor may be another file's by then
        locked = self._writing.acquire(timeout=STOP_WAIT)
        try:
            self._closed = True
            if self.popen.stdin is not None:
                with contextlib.suppress(OSError):
                    self.popen.stdin.close()
        finally:
            if locked:
                self._writing.release()
