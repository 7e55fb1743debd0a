"""Where a case runs, so that its time limit holds and nothing it leaves behind reaches another case.

- ``process`` (the default on Linux): a case-runner process forked from the pytest process once the
  cases are collected. It runs each case whole (``harness.pytest_plugin.case_run``: inputs, adapter
  call, canonicalisation, judging) and sends back plain data. When a case overruns ``--case-timeout``
  the runner process is killed, whatever it was doing (C code that never releases the GIL, a
  blocking ``Mapping``, threads the adapter started), and the next case gets a fresh fork; when the
  adapter ends the process (``os._exit``), only that case is lost. The runner has a network
  namespace of its own (``harness.cassettes.netns``) and the in-process guard installed for its whole
  life. A fork costs tens of milliseconds once per session (and once per killed case); a case costs
  one round trip on a pipe. SDK imports are warmed up before the fork, so every fork has them.
- ``thread``: the calls run on a worker thread that is abandoned on timeout (Windows, or a debugger
  or coverage tool that does not follow a fork); the guard is installed for the whole session.
- out-of-process adapters (``exec:``) run inline: the adapter itself kills and restarts its runtime
  process when the time limit passes, and restarts are bounded by the same limit.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import io
import logging
import math
import mmap
import os
import select
import signal
import struct
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, Pipe
from typing import TYPE_CHECKING, Any

from harness.cassettes import netns
from harness.cassettes.network_guard import GUARD, charged
from harness.pytest_plugin.case_host import is_runnable
from harness.pytest_plugin.case_run import PREPARE_LIMIT, CaseResult, finish_case, prepare_case
from harness.pytest_plugin.timeout import CaseAborted, CaseTimeout, RunnerEnded, TimedRunner
from harness.secret_values import key_values, redact

if TYPE_CHECKING:
    from harness.pytest_plugin.case_host import CaseHost, RunnableCase

RUNNERS = ("process", "thread")
DEFAULT_RUNNER = "process" if sys.platform.startswith("linux") and hasattr(os, "fork") else "thread"
START_TIMEOUT = 60.0
GUARD_ONLY = "the in-process guard only (subprocesses and the raw _socket module are not covered)"


def _threads() -> set[int]:
    return {t.ident for t in threading.enumerate() if t.ident is not None}


@contextlib.contextmanager
def _network_watch(result_box: list[CaseResult], runner_thread: Callable[[], int]) -> Iterator[None]:
    """Charge the case with the network attempts of its runner thread and of threads it started."""
    mark, before = GUARD.mark(), _threads()
    yield
    ident = runner_thread()
    if result_box:
        result_box[0].attempts = charged(GUARD.since(mark), before - {ident}, ident)


class CaseRunner:
    """Runs cases; ``network`` says how the network is blocked where adapter code runs."""

    name = "inline"
    network = GUARD_ONLY

    def __init__(self, session: CaseHost) -> None:
        self.session = session
        self._recorded: list[str] = []
        self._guarded = False

    def _note_recorded(self, path: str) -> None:
        self._recorded.append(path)

    def _install_guard(self) -> None:
        if not self._guarded:
            GUARD.install()
            self._guarded = True
            self.session.on_recorded = self._note_recorded

    def run(self, item: RunnableCase) -> CaseResult:
        raise NotImplementedError

    def close(self) -> None:
        if self._guarded:
            GUARD.uninstall()
            self._guarded = False


class InlineRunner(CaseRunner):
    """In the calling thread: for out-of-process adapters, which bound their own calls (and restarts)
    by the time limit, and for ``--case-timeout 0`` with the thread runner (a debugger works)."""

    def __init__(self, session: CaseHost) -> None:
        super().__init__(session)
        adapter = session.impl.adapter
        if getattr(adapter, "out_of_process", False):
            self.name = "exec"
            self.network = getattr(adapter, "network", GUARD_ONLY)

    def run(self, item: RunnableCase) -> CaseResult:
        self._install_guard()
        self._recorded = []
        timeout = self.session.timeout or None
        adapter = self.session.impl.adapter
        ready = getattr(adapter, "ready", None)
        if callable(ready):
            ready(timeout)
        prepared = prepare_case(self.session, item.loaded, item.corpus_root)
        if isinstance(prepared, CaseResult):
            return prepared
        limit = getattr(adapter, "time_limit", None)
        box: list[CaseResult] = []
        bounded = limit(timeout) if callable(limit) else contextlib.nullcontext()
        with _network_watch(box, threading.get_ident), bounded:
            box.append(finish_case(self.session, prepared))
        box[0].recorded = list(self._recorded)
        return box[0]


class ThreadRunner(CaseRunner):
    """On a worker thread, abandoned when a case overruns (the fallback where forking is not an option)."""

    name = "thread"

    def __init__(self, session: CaseHost) -> None:
        super().__init__(session)
        self.timer = TimedRunner()

    @property
    def abandoned(self) -> int:
        return self.timer.abandoned

    def run(self, item: RunnableCase) -> CaseResult:
        self._install_guard()
        self._recorded = []
        timeout = self.session.timeout
        worker = self.timer.ensure_worker() if timeout else threading.current_thread()
        ctx = self.session.context(item.corpus_root)
        prepared = prepare_case(self.session, item.loaded, item.corpus_root)
        if isinstance(prepared, CaseResult):
            return prepared
        box: list[CaseResult] = []
        try:
            with _network_watch(box, lambda: worker.ident or 0):
                box.append(self.timer.run(lambda: finish_case(self.session, prepared), timeout))
        except CaseTimeout as exc:
            for exchange in ctx.opened:  # an abandoned recording writes nothing, now or later
                exchange.cancel()
            exc.recorded = tuple(self._recorded)
            raise
        box[0].recorded = list(self._recorded)
        return box[0]


# --- the process runner -------------------------------------------------------------------------------


class _LogRecords(logging.Handler):
    """Collects the log records of a case in the runner process, as plain dicts for the pipe."""

    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        data = {
            k: v for k, v in record.__dict__.items() if isinstance(v, str | int | float | bool | type(None))
        }
        data["msg"], data["args"] = record.getMessage(), None
        if record.exc_info:
            data["exc_text"] = logging.Formatter().formatException(record.exc_info)
        self.records.append(data)


def _die_with_parent() -> None:
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _isolate(recording: bool) -> str:
    """Give this (new, one-threaded) process no network; describes what it got."""
    if recording:
        passage, how = netns.HostPassage.isolate()
        if passage is None:
            return f"{GUARD_ONLY}; no namespace in record mode: {how}"
        GUARD.passage = passage
        return how
    isolated, how = netns.unshare_network()
    return how if isolated else f"{GUARD_ONLY}; no namespace: {how}"


class _CalledMark:
    """Where the runner process marks the moment a case's adapter call starts (``--case-timeout`` runs
    from there, the preparation has a budget of its own): a shared page, read by the pytest process only
    when it has to decide on a time limit, so that a case costs no message for it.

    The runner writes the time, then the number of the case it belongs to; x86 and ARM keep two stores
    to one page in order for a reader that sees the second, and a mark of an earlier case is ignored."""

    _LAYOUT = struct.Struct("=Qd")

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, self._LAYOUT.size)  # anonymous and shared: a fork sees the same page

    def mark(self, case: int) -> None:
        struct.pack_into("=d", self._page, 8, time.monotonic())
        struct.pack_into("=Q", self._page, 0, case)

    def called_at(self, case: int) -> float | None:
        """When case number ``case``'s adapter call started (``time.monotonic()``, the same clock in
        both processes), or ``None`` while it is still being prepared."""
        seen, at = self._LAYOUT.unpack_from(self._page)
        return at if seen == case else None


def _serve(session: CaseHost, conn: Connection, called: _CalledMark) -> None:
    """The runner process: isolate, then run the cases the pytest process sends, one at a time."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the pytest process's to handle
    _die_with_parent()
    network = _isolate(session.records)
    GUARD.install()
    session.on_recorded = lambda path: conn.send(("recorded", path))
    records = _LogRecords()
    root = logging.getLogger()
    root.handlers[:] = [records]  # the pytest process handles them (capture, live logs, files)
    conn.send(("hello", network))
    main = threading.get_ident()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        number, nodeid = message
        item = session.case_items[nodeid]
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err = io.StringIO(), io.StringIO()
        records.records = []
        mark, before = GUARD.mark(), _threads() - {main}
        try:
            prepared = prepare_case(session, item.loaded, item.corpus_root)
            if isinstance(prepared, CaseResult):
                result = prepared
            else:
                called.mark(number)  # the runtime's part starts: --case-timeout from here
                result = finish_case(session, prepared)
        except BaseException:
            result = CaseResult(
                "error", f"the harness failed on this case (a wireconf bug):\n{traceback.format_exc()}"
            )
        finally:
            sys.stdout, sys.stderr = stdout, stderr
        result.attempts = charged(GUARD.since(mark), before, main)
        result.stdout, result.stderr, result.logs = out.getvalue(), err.getvalue(), records.records
        try:
            conn.send(("done", result))
        except Exception as exc:  # something in the result does not pickle: send what does
            result.logs = []
            result.message = f"{result.message}\n(the case's log records could not be sent: {exc!r})"
            conn.send(("done", result))


def _status(code: int) -> str:
    code = os.waitstatus_to_exitcode(code)
    return f"exit status {code}" if code >= 0 else f"killed by signal {-code}"


class ForkedRunner(CaseRunner):
    """Cases run in a forked process that is killed when one overruns (see the module docstring)."""

    name = "process"
    network = "a runner process with a network namespace of its own (started at the first case)"

    def __init__(self, session: CaseHost) -> None:
        super().__init__(session)
        self._pid: int | None = None
        self._conn: Connection | None = None
        self._poller: select.poll | None = None
        self._called = _CalledMark()
        self._cases = 0
        self.forks = 0

    def _warm_up(self, selected: list[RunnableCase], shared: bool) -> None:
        """Do here, once per process, what every fork would otherwise redo inside its cases' time limits
        and lose at the session's end: import the SDKs, create their replay clients, parse (and check)
        the cassettes the selected cases use and have the SDK parse each recorded response once (its
        deferred model schemas, ``SdkReplay.warm``). A runner process started after a kill, or by a
        later session of the same process, then begins as warm as the first one. An xdist worker
        (``shared``) runs only its share of the selected cases, so it leaves the cassettes to its runner
        process (each within its case's preparation budget) rather than parse every one of them."""
        from harness.cassettes.store import CassetteError
        from harness.kinds.base import warm_sdk_input
        from harness.providers.registry import APIS, PROVIDER_OF
        from harness.sdk.replay import warm_up

        for api in sorted({item.loaded.api for item in selected} & APIS.keys()):
            warm_up(api)
            self.session.replay.client(PROVIDER_OF[api])
        if self.session.records or shared:  # recording changes cassettes: each runner reads them fresh
            return
        for item in selected:
            ctx = self.session.context(item.corpus_root)
            model = item.loaded.model
            name = getattr(getattr(model, "response", None), "cassette", None) or getattr(
                model, "cassette", None
            )
            if isinstance(name, str):
                with contextlib.suppress(CassetteError, OSError):
                    ctx.cassettes.load(name).problem()
            if item.loaded.api in APIS:
                warm_sdk_input(ctx, item.loaded)

    def _start(self, item: RunnableCase) -> Connection:
        if self.forks == 0:
            selected = [i for i in item.session.items if is_runnable(i)]
            # what the warm-up builds (SDK modules, their models' schemas, parsed responses) lives as long
            # as the process: no collection while it allocates, and, where the session froze the heap
            # after collecting (``frozen_heap``), frozen with it, before the fork copies it
            enabled = gc.isenabled()
            gc.disable()
            try:
                self._warm_up(selected, shared=hasattr(item.session.config, "workerinput"))
            finally:
                if gc.get_freeze_count():
                    gc.freeze()
                if enabled:
                    gc.enable()
        ours, theirs = Pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # "multi-threaded, fork() may deadlock"
            pid = os.fork()
        if pid == 0:
            code = 0
            try:
                ours.close()
                _serve(self.session, theirs, self._called)
            except BaseException:
                traceback.print_exc()
                code = 70
            finally:
                os._exit(code)
        theirs.close()
        self._pid, self._conn = pid, ours
        self._poller = select.poll()  # one for the runner's life (Connection.poll builds a selector per call)
        self._poller.register(ours.fileno(), select.POLLIN)
        self.forks += 1
        if not ours.poll(START_TIMEOUT):
            self._stop()
            raise RuntimeError(f"the case-runner process did not start within {START_TIMEOUT:g} s")
        try:
            _, self.network = ours.recv()
        except (EOFError, OSError):
            raise RuntimeError(f"the case-runner process ended as it started ({self._stop()})") from None
        return ours

    def _stop(self) -> str:
        """Kill and reap the runner process; its status."""
        pid, conn = self._pid, self._conn
        self._pid = self._conn = self._poller = None
        if conn is not None:
            conn.close()
        if pid is None:
            return "not running"
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        return _status(status)

    def _ended(self) -> str:
        """Reap a runner process that ended on its own; its status."""
        pid, conn = self._pid, self._conn
        self._pid = self._conn = self._poller = None
        if conn is not None:
            conn.close()
        assert pid is not None
        _, status = os.waitpid(pid, 0)
        return _status(status)

    def _ready(self, seconds: float | None) -> bool:
        """Whether the runner's answer arrived within ``seconds`` (``None``: wait for it)."""
        assert self._poller is not None
        return bool(self._poller.poll(None if seconds is None else max(0, math.ceil(seconds * 1000))))

    def run(self, item: RunnableCase) -> CaseResult:
        conn = self._conn or self._start(item)
        timeout = self.session.timeout or None
        started = time.monotonic()
        recorded: list[str] = []
        self._cases += 1
        number = self._cases
        try:
            conn.send((number, item.nodeid))
        except OSError:  # it ended between cases (a thread left behind called os._exit): start again
            self._ended()
            conn = self._start(item)
            conn.send((number, item.nodeid))
        try:
            while True:
                called = self._called.called_at(number)
                if called is None:  # preparing: its own budget, and a look at the mark within `timeout`
                    deadline = started + PREPARE_LIMIT
                    wait = deadline - time.monotonic()
                    if timeout is not None:
                        wait = min(wait, timeout)
                else:
                    deadline = None if timeout is None else called + timeout
                    wait = None if deadline is None else deadline - time.monotonic()
                if deadline is not None and time.monotonic() >= deadline:
                    self._stop()
                    raise self._timed_out(
                        timeout, called is None, started, called or started, tuple(recorded)
                    )
                if not self._ready(wait):
                    continue  # the deadline, or the mark, is looked at again
                try:
                    kind, payload = conn.recv()
                except (EOFError, OSError):
                    status = self._ended()
                    raise RunnerEnded(
                        f"the adapter ended its process while it ran this case ({status}; os._exit, or a "
                        "crash in C code); the next case runs in a fresh runner process",
                        tuple(recorded),
                    ) from None
                if kind == "recorded":
                    recorded.append(payload)
                elif kind == "done":
                    payload.recorded = recorded
                    return payload
        except KeyboardInterrupt:
            self._stop()
            raise

    @staticmethod
    def _timed_out(
        timeout: float | None, preparing: bool, started: float, called: float, recorded: tuple[str, ...]
    ) -> CaseAborted:
        now = time.monotonic()
        if preparing:
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
            self._stop()
        super().close()


def make_runner(session: CaseHost, choice: str) -> CaseRunner:
    """The runner for this session: inline for out-of-process adapters, else the chosen one."""
    if getattr(session.impl.adapter, "out_of_process", False):
        return InlineRunner(session)
    if choice == "process" and hasattr(os, "fork"):
        return ForkedRunner(session)
    if not session.timeout:
        return InlineRunner(session)
    return ThreadRunner(session)


def replay_logs(result: CaseResult) -> None:
    """Hand a runner process's log records to this process's logging (pytest's capture, live logs),
    without the environment's keys: live logs and ``--log-file`` are not reports the makereport
    wrapper redacts."""
    values = key_values()
    for data in result.logs:
        record = logging.makeLogRecord(data)
        if values:
            record.msg = redact(str(record.msg), values)
            record.exc_text = redact(record.exc_text, values) if record.exc_text else record.exc_text
        logging.getLogger(record.name).handle(record)
