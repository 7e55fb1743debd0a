"""The forked runner: cases run in a process forked from the pytest process, killed when one overruns,
working ahead of the case pytest reports (the package's docstring says how)."""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import sys
import time
import traceback
import warnings
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING

from wireconf.cassettes.passage import close_quietly, open_passage
from wireconf.pytest_plugin.case_run import JUDGE_LIMIT, PREPARE_LIMIT, CaseResult
from wireconf.pytest_plugin.runners.base import CaseRunner
from wireconf.pytest_plugin.runners.child import serve
from wireconf.pytest_plugin.runners.pipe import Results, RunnerStartError, check_message, runner_pipe
from wireconf.pytest_plugin.runners.progress import Progress
from wireconf.pytest_plugin.runners.reaping import exit_status, kill_group, reap_later
from wireconf.pytest_plugin.runners.warm import warm_up
from wireconf.pytest_plugin.timeout import CaseAborted, CaseTimeout, RunnerEnded

if TYPE_CHECKING:
    from wireconf.pytest_plugin.case_host import CaseHost, RunnableCase

START_TIMEOUT = 60.0


@dataclass
class _Sent:
    """A case sent to the runner process and not answered yet."""

    number: int
    item: RunnableCase
    at: float  # time.monotonic() when it was sent


class ForkedRunner(CaseRunner):
    """Cases run in a forked process that is killed when one overruns (see the package's docstring)."""

    name = "process"
    network = "a runner process with a network namespace of its own (started with the run loop)"
    AHEAD = 512
    """Cases sent beyond the one pytest waits for (one on an xdist worker: it knows only the next). A
    long lead lets the runner work through quick cases while this process reports them, and come to the
    slow ones (stream files', which ``items.streams_last`` puts last) ahead; its results wait in the pipe
    (``RESULTS_BUFFER``). The lead is topped up in one message once half of it is used, and only while
    the pipe has room: were this process to block on a send while the runner blocks on sending answers,
    neither would go on."""

    RESULTS_BUFFER = 1 << 21
    """``SO_SNDBUF`` of the runner's end (the kernel caps it at ``net.core.wmem_max``): each result is
    accounted at about a kibibyte, so the default (~200 KiB) holds fewer results than ``AHEAD``."""

    def __init__(self, session: CaseHost) -> None:
        super().__init__(session)
        self._pid: int | None = None
        self._conn: Connection | None = None
        self._results: Results | None = None
        self._room: select.poll | None = None
        self._progress = Progress()
        self._records = session.records  # the run's recording mode, asked before each top-up otherwise
        self._sent: deque[_Sent] = deque()
        self._cases = 0
        self._greeted = False
        self.forks = 0
        self.ahead = 0
        """Cases started before pytest asked for them (while it reported the one before)."""

    def _fork(self, item: RunnableCase) -> Connection:
        """Warm up (before the first fork) and fork the runner process; its hello is not waited for
        (``_greet``): it isolates itself meanwhile, and the cases sent wait in the pipe."""
        if self.forks == 0:
            warm_up(self.session, item)
        ours, theirs = runner_pipe(self.RESULTS_BUFFER)
        passage = open_passage(os.environ) if self.session.records else None
        sys.stdout.flush()
        sys.stderr.flush()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # "multi-threaded, fork() may deadlock"
            pid = os.fork()
        if pid == 0:
            code = 0
            try:
                ours.close()
                close_quietly(passage[1] if passage else None)
                serve(self.session, theirs, self._progress, passage[0] if passage else None)
            except BaseException:
                traceback.print_exc()
                code = 70
            finally:
                os._exit(code)
        with contextlib.suppress(OSError):  # the child's own call may have come first
            os.setpgid(pid, pid)
        theirs.close()
        close_quietly(passage[0] if passage else None)
        self._pid, self._conn = pid, ours
        self._results = Results(ours.fileno())
        self._room = select.poll()
        self._room.register(ours.fileno(), select.POLLOUT)
        self.forks += 1
        self._greeted = False
        return ours

    def _greet(self) -> None:
        """Take the runner process's hello (what its isolation gave it), the first thing it sends."""
        results = self._results
        assert results is not None
        if not results.ready(START_TIMEOUT):
            self._stop()
            raise RunnerStartError(f"the case-runner process did not start within {START_TIMEOUT:g} s")
        try:
            _, self.network = results.receive()
        except (EOFError, OSError, pickle.UnpicklingError, ValueError):
            raise RunnerStartError(f"the case-runner process ended as it started ({self._stop()})") from None
        self._greeted = True
        now = time.monotonic()
        for sent in self._sent:  # sent before it was ready (started early): their time starts now
            sent.at = now

    def _start(self, item: RunnableCase) -> Connection:
        conn = self._fork(item)
        self._greet()
        return conn

    def start_early(self, item: RunnableCase) -> None:
        """Fork the runner process before the first case asks for it (``CaseRunner.start_early``): it
        isolates itself while this process begins the first item's protocol."""
        if self._conn is None and not self._records:
            self._fork(item)

    def _detach(self) -> int | None:
        """Forget the runner process and what was sent to it, close the pipe; its pid, if there was one."""
        pid, conn = self._pid, self._conn
        self._pid = self._conn = self._results = self._room = None
        self._sent.clear()
        if conn is not None:
            conn.close()
        return pid

    def _stop(self, wait: bool = True) -> str:
        """Kill the runner process (and with it the cases sent to it) and reap it; its status. Without
        ``wait``, a thread reaps it (``reap_later``)."""
        pid = self._detach()
        if pid is None:
            return "not running"
        kill_group(pid)
        if not wait:
            reap_later(pid)
            return "killed"
        _, code = os.waitpid(pid, 0)
        return exit_status(code)

    def _ended(self) -> str:
        """Reap a runner process that ended on its own (and kill what it left running); its status."""
        pid = self._detach()
        assert pid is not None
        kill_group(pid)
        _, code = os.waitpid(pid, 0)
        return exit_status(code)

    def _send(self, conn: Connection, items: list[RunnableCase]) -> None:
        """Send ``items`` in one message; the runner runs them in this order."""
        now, first = time.monotonic(), self._cases + 1
        sent = [_Sent(first + i, item, now) for i, item in enumerate(items)]
        conn.send([(case.number, case.item.nodeid) for case in sent])
        self._cases += len(sent)
        self._sent.extend(sent)

    def _queued(self, item: RunnableCase) -> _Sent:
        """The runner's entry for ``item``: the one sent ahead, or one sent now."""
        if self._sent and self._sent[0].item is item:  # pytest builds a nodeid anew on every read
            return self._sent[0]
        if self._sent:  # sent ahead for an item that did not run next (a rerun, a plugin's own protocol)
            self._stop()
        conn = self._conn or self._start(item)
        try:
            self._send(conn, [item])
        except OSError:  # it ended between cases (a thread left behind called os._exit): start again
            self._ended()
            self._send(self._start(item), [item])
        return self._sent[0]

    def _send_ahead(self, item: RunnableCase) -> None:
        """Start the cases the plan has next, up to ``AHEAD`` of them, behind ``item``, the one pytest
        waits for: the runner runs them while this process reports, and a slow case is made up for by
        the quick ones around it. Never in record mode: a recording's messages name no case."""
        if self._conn is None or self._room is None or self._records:
            return
        lead = len(self._sent) - 1  # the first one sent is the case pytest waits for
        if lead > self.AHEAD // 2 or not self._room.poll(0):  # no room: the cases go when they are due
            return
        batch = self.session.plan.following(item, len(self._sent), self.AHEAD - lead)  # in plan order
        if not batch:
            return
        try:
            self._send(self._conn, batch)
        except OSError:  # it is ending: the cases are sent again when they are due
            return
        self.ahead += len(batch)

    def run(self, item: RunnableCase) -> CaseResult:
        sent = self._queued(item)
        self._send_ahead(item)
        if not self._greeted:  # started early: its hello comes before any result
            self._greet()
        sent.at = max(sent.at, time.monotonic())  # the runner is free for it from now, however early sent
        results = self._results
        assert results is not None
        timeout = self.session.timeout or None
        recorded: list[str] = []
        try:
            while True:
                state, at = self._progress.of(sent.number)
                if state == "called":
                    deadline = None if timeout is None or at is None else at + timeout
                    wait = None if deadline is None else deadline - time.monotonic()
                elif state == "answered":
                    deadline = wait = None
                elif state == "judging":  # the harness's own time: its budget
                    deadline = (at or sent.at) + JUDGE_LIMIT
                    wait = deadline - time.monotonic()
                else:  # preparing (or about to): its own budget, and a look at the mark within `timeout`
                    deadline = (at or sent.at) + PREPARE_LIMIT
                    wait = deadline - time.monotonic()
                    if timeout is not None:
                        wait = min(wait, timeout)
                if not results.ready(wait):
                    passed = deadline is not None and time.monotonic() >= deadline
                    if passed and self._progress.of(sent.number) == (state, at):  # not moved on since
                        self._stop()
                        begun = self._progress.started_at(sent.number) or sent.at
                        raise self._timed_out(timeout, state, begun, at or begun, tuple(recorded))
                    continue  # the deadline, or the mark, is looked at again
                try:
                    message = check_message(results.receive(), sent.number)
                except (pickle.UnpicklingError, ValueError, TypeError) as exc:
                    self._stop()
                    raise RunnerEnded(
                        f"the runner process sent something that is not a case's result ({exc}); the "
                        "runtime shares that process and wrote to its pipe; the next case runs in a fresh "
                        "runner process",
                        tuple(recorded),
                    ) from None
                except (EOFError, OSError):
                    status = self._ended()
                    raise RunnerEnded(
                        f"the adapter ended its process while it ran this case ({status}; os._exit, or a "
                        "crash in C code); the next case runs in a fresh runner process",
                        tuple(recorded),
                    ) from None
                if isinstance(message, str):  # a cassette recorded
                    recorded.append(message)
                else:
                    self._sent.popleft()
                    message.recorded = recorded
                    return message
        except KeyboardInterrupt:
            self._stop()
            raise

    @staticmethod
    def _timed_out(
        timeout: float | None, state: str, started: float, called: float, recorded: tuple[str, ...]
    ) -> CaseAborted:
        now = time.monotonic()
        if state == "judging":
            return CaseAborted(
                f"judging what the runtime returned (the harness's part, after the adapter call) did not "
                f"finish within {JUDGE_LIMIT:g} s; its runner process was stopped after "
                f"{now - called:.1f} s of it",
                recorded,
            )
        if state != "called":
            return CaseAborted(
                f"preparing the case's input (the harness's part: its cassette, the SDK objects) did not "
                f"finish within {PREPARE_LIMIT:g} s; its runner process was stopped after "
                f"{now - started:.1f} s",
                recorded,
            )
        took, before = now - called, called - started
        return CaseTimeout(
            timeout or 0,
            took,
            f"its runner process was stopped after {took:.1f} s (and {before:.1f} s preparing its input), "
            "and with it everything the case was running; the next case runs in a fresh one",
            recorded,
        )

    def close(self) -> None:
        if self._conn is not None:
            self._stop(wait=False)
        super().close()
