"""Where a case runs, so that its time limit holds and nothing it leaves behind reaches another case.

- ``process`` (the default on Linux): a case-runner process forked from the pytest process once the
  cases are collected. It runs each case whole (``wireconf.pytest_plugin.case_run``: inputs, adapter
  call, canonicalisation, judging) and sends back plain data. When a case overruns ``--case-timeout``
  the runner process is killed, whatever it was doing (C code that never releases the GIL, a
  blocking ``Mapping``, threads the adapter started), and the next case gets a fresh fork; when the
  adapter ends the process (``os._exit``), only that case is lost. The runner has a network
  namespace of its own (``wireconf.cassettes.netns``) and the in-process guard installed for its whole
  life. A fork costs tens of milliseconds once per session (and once per killed case); a case costs
  one message each way on a pipe. SDK imports are warmed up before the fork, so every fork has them.
  While the pytest process reports a case, the runner already runs the next ones (up to
  ``ForkedRunner.AHEAD`` of them, from the ``Plan`` the run loop hands the session once: the cases in
  the order pytest runs them, each marked whether anything but its adapter's answer can keep it from
  running): the two processes overlap on two cores, and each case still runs alone, in order, under
  its own time limit, with its own output, log records and cassette-folder changes (the runner reads
  the folder's watch after each case). An item never looks ahead; it asks the runner for its own case.
- ``thread``: the calls run on a worker thread that is abandoned on timeout (Windows, or a debugger
  or coverage tool that does not follow a fork); the guard is installed for the whole session.
- out-of-process adapters (``exec:``) run inline, after the same warm-up: the adapter itself kills and
  restarts its runtime process when the time limit passes, and restarts are bounded by the same limit.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import importlib
import io
import logging
import math
import mmap
import os
import pickle
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, Pipe
from typing import TYPE_CHECKING, Any, cast

from wireconf.cassettes import netns
from wireconf.cassettes.network_guard import GUARD, charged
from wireconf.cassettes.passage import Passage, close_quietly, open_passage
from wireconf.differences import Difference
from wireconf.errors import WireconfError
from wireconf.kinds.concepts import needed_concepts
from wireconf.kinds.registry import KINDS
from wireconf.pytest_plugin import heap_freeze
from wireconf.pytest_plugin.case_host import is_runnable
from wireconf.pytest_plugin.case_run import (
    JUDGE_LIMIT,
    PREPARE_LIMIT,
    CaseResult,
    Prepared,
    call_case,
    finish_case,
    judge_case,
    prepare_case,
)
from wireconf.pytest_plugin.timeout import CaseAborted, CaseTimeout, RunnerEnded, TimedRunner
from wireconf.safe_pickle import loads_only
from wireconf.secret_values import key_values, redact

if TYPE_CHECKING:
    from wireconf.cassettes.watch import CassetteWatch
    from wireconf.pytest_plugin.case_host import CaseHost, RunnableCase


class Plan:
    """The cases in the order pytest runs them, written by the run loop (``active.pytest_runtestloop``
    once with every item; an xdist worker, handed its items as it goes, one ``nextitem`` at a time) and
    read by the runner, which decides what it starts early. Each entry is a case whose setup runs it
    unless its adapter's answer decides otherwise, or ``None``: an item pytest may or may not run a case
    for (a skip or xfail mark decides it before its setup), past which nothing starts early. Items that
    never ask for a case (unsupported, corpus problems, other plugins' tests) are not in it."""

    def __init__(self) -> None:
        self._entries: list[RunnableCase | None] = []
        self._at: dict[str, int] = {}

    def extend(self, entries: Iterable[RunnableCase | None]) -> None:
        for entry in entries:
            if entry is not None:
                self._at[entry.nodeid] = len(self._entries)
            self._entries.append(entry)

    def last(self) -> RunnableCase | None:
        return self._entries[-1] if self._entries else None

    def after(self, item: RunnableCase, k: int) -> RunnableCase | None:
        """The case ``k`` entries after ``item``'s, if no barrier comes first and it is planned at all."""
        at = self._at.get(item.nodeid)
        if at is None or self._entries[at] is not item:
            return None
        for entry in self._entries[at + 1 : at + k + 1]:
            if entry is None:
                return None
        return self._entries[at + k] if at + k < len(self._entries) else None


RUNNERS = ("process", "thread")
DEFAULT_RUNNER = "process" if sys.platform.startswith("linux") and hasattr(os, "fork") else "thread"
START_TIMEOUT = 60.0
GUARD_ONLY = "the in-process guard only (subprocesses and the raw _socket module are not covered)"


MCP_CLIENT = ("mcp", "mcp.client.stdio", "mcp.client.session")
"""The official MCP client, which a runtime that reaches the MCP server of a case's ``mcp`` tools most
likely uses: about a second of CPU to import, paid by the runner before any case's time limit starts,
and only when a selected case has such a tool (otherwise by no process)."""


def warm_imports(selected: Iterable[RunnableCase]) -> None:
    """Import what the selected cases' runtimes will import on their first call, outside every case's
    time limit (the SDKs are warmed up per api by ``wireconf.sdk.replay.warm_up``)."""
    if any("mcp-tools" in needed_concepts(i.loaded.kind, i.loaded.api, i.loaded.raw) for i in selected):
        for name in MCP_CLIENT:
            with contextlib.suppress(ImportError):  # a runtime without the client brings its own
                importlib.import_module(name)


def warm_up(session: CaseHost, item: RunnableCase) -> None:
    """Do once per process what every case would otherwise redo inside its time limit: import the SDKs,
    create their replay clients, parse (and check) the cassettes the selected cases use and have the SDK
    parse each recorded response once (its deferred model schemas, ``SdkReplay.warm``). The forked
    runner does it before its first fork, so that a runner process started after a kill, or by a later
    session of the same process, begins as warm as the first one; the inline runner (``exec:``) before
    its first case, while the runtime process warms up on the other core. An xdist worker (``shared``)
    runs only its share of the selected cases, so it leaves the cassettes to each case's preparation
    (within its budget) rather than parse every one of them."""
    selected = [i for i in item.session.items if is_runnable(i)]
    shared = hasattr(item.session.config, "workerinput")
    # what the warm-up builds (SDK modules, their models' schemas, parsed responses) lives as long as
    # the process: no collection while it allocates, and, where the session froze the heap after
    # collecting (``frozen_heap``), frozen with it (before the forked runner's fork copies it)
    enabled = gc.isenabled()
    gc.disable()
    try:
        _warm(session, selected, shared)
    finally:
        heap_freeze.refreeze()
        if enabled:
            gc.enable()


def _warm(session: CaseHost, selected: list[RunnableCase], shared: bool) -> None:
    from wireconf.cassettes.store import CassetteError
    from wireconf.kinds.base import warm_sdk_input
    from wireconf.providers.registry import APIS, PROVIDER_OF
    from wireconf.sdk.replay import warm_up as warm_sdk

    for api in sorted({item.loaded.api for item in selected} & APIS.keys()):
        warm_sdk(api)
        session.replay.client(PROVIDER_OF[api])
    warm_imports(selected)
    if session.records or shared:  # recording changes cassettes: each case reads them fresh
        return
    for item in selected:
        ctx = session.context(item.corpus_root)
        model = item.loaded.model
        name = _field(_field(model, "response"), "cassette") or _field(model, "cassette")
        if isinstance(name, str):
            with contextlib.suppress(CassetteError, OSError):
                ctx.cassettes.load(name).problem()
        if item.loaded.api in APIS:
            warm_sdk_input(ctx, item.loaded)


def _field(model: object, name: str) -> Any:
    """``getattr(model, name, None)`` for a case model and its parts (pydantic models, which forbid
    fields they do not declare), looked up among the declared fields first: a pydantic model raises and
    catches an exception for a name it lacks (some 2 µs, twice per case of a warm-up otherwise)."""
    fields = getattr(type(model), "model_fields", None)
    if isinstance(fields, dict) and name not in fields:
        return None
    return getattr(model, name, None)


def _threads() -> set[int]:
    return {t.ident for t in threading.enumerate() if t.ident is not None}


@contextlib.contextmanager
def _network_watch(runner_thread: Callable[[], int]) -> Iterator[list[str]]:
    """The network attempts of the case's runner thread and of threads it started (filled in when the
    block ends)."""
    mark, before = GUARD.mark(), _threads()
    attempts: list[str] = []
    yield attempts
    ident = runner_thread()
    attempts += charged(GUARD.since(mark), before - {ident}, ident)


def _look(result: CaseResult, watch: CassetteWatch | None, recorded: Iterable[str]) -> None:
    """Fill in what changed in the watched cassettes folder since the last look, by who did it (read
    after each case by the process that ran it; ``recorded``: what the harness recorded meanwhile)."""
    if watch is None:
        return
    look = watch.look(recorded)
    result.watched, result.changed, result.unknown = str(watch.root), look.runtime, look.unknown


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
        """Run ``item`` (a runner may have started it early, from the session's ``Plan``)."""
        raise NotImplementedError

    def close(self) -> None:
        if self._guarded:
            GUARD.uninstall()
            self._guarded = False


class InlineRunner(CaseRunner):
    """In the calling thread: for out-of-process adapters, which bound their own calls (and restarts)
    by the time limit, and for ``--case-timeout 0`` with the thread runner (a debugger works). Before
    its first case it warms up as the forked runner does before its fork (``warm_up``), while an
    ``exec:`` runtime warms up in its own process. An
    ``exec:`` runtime whose hello says ``ahead`` gets the calls of the cases the plan has next before
    they run (``_send_ahead``), so that it works on them while this process judges and reports; each
    case still waits for its own answers, in order, under its own time limit, which starts when it
    does."""

    AHEAD = 8
    """Cases whose calls an ``exec:`` runtime that says ``ahead`` gets before they run: enough for the
    runtime to stay busy while this process judges and reports, few enough that a pipe of 64 KiB
    holds their calls."""

    def __init__(self, session: CaseHost) -> None:
        super().__init__(session)
        adapter = session.impl.adapter
        if getattr(adapter, "out_of_process", False):
            self.name = "exec"
            self.network = getattr(adapter, "network", GUARD_ONLY)
        self._prepared: dict[str, Prepared | CaseResult] = {}
        """Cases prepared ahead (their calls written to the runtime), by node id."""
        self._warm = False
        self.ahead = 0
        """Cases whose calls were written before pytest asked for them."""

    def run(self, item: RunnableCase) -> CaseResult:
        if not self._warm:
            warm_up(self.session, item)
            self._warm = True
        self._install_guard()
        self._recorded = []
        watch = self.session.watch(item.corpus_root)
        timeout = self.session.timeout or None
        adapter = self.session.impl.adapter
        prepared = self._prepared.pop(item.nodeid, None) or prepare_case(
            self.session, item.loaded, item.corpus_root
        )
        ahead = getattr(adapter, "sends_ahead", False) is True and not self.session.records
        # the window is prepared before `ready`: on the first case, the harness's own SDK imports and
        # cassette parsing run while the runtime is still warming up (it says `warm` once loaded)
        window = self._window(item, prepared) if ahead else []
        ready = getattr(adapter, "ready", None)
        if callable(ready):
            ready(timeout)
        if ahead:
            self._send_ahead(item, window, adapter)
        if isinstance(prepared, CaseResult):
            return prepared
        limit = getattr(adapter, "time_limit", None)
        bounded = limit(timeout) if callable(limit) else contextlib.nullcontext()
        claimed = adapter.claimed(item.nodeid) if ahead else contextlib.nullcontext()
        with _network_watch(threading.get_ident) as attempts, bounded, claimed:
            called = call_case(self.session, prepared)
        result = called if isinstance(called, CaseResult) else judge_case(called)  # the harness's time
        result.attempts = attempts
        result.recorded = list(self._recorded)
        _look(result, watch, self._recorded)
        return result

    def _window(
        self, item: RunnableCase, prepared: Prepared | CaseResult
    ) -> list[tuple[RunnableCase, Prepared | CaseResult]]:
        """``item`` and the next ``AHEAD`` cases of the plan, prepared (as ``run`` would), up to a
        barrier or just past a case whose calls cannot go ahead (``_goes_ahead``)."""
        window: list[tuple[RunnableCase, Prepared | CaseResult]] = [(item, prepared)]
        for k in range(1, self.AHEAD + 1):
            upcoming = self.session.plan.after(item, k)
            if upcoming is None:
                break
            ready = self._prepared.get(upcoming.nodeid) or prepare_case(
                self.session, upcoming.loaded, upcoming.corpus_root
            )
            window.append((upcoming, ready))
            if not (isinstance(ready, CaseResult) or _goes_ahead(ready)):
                break
        self._prepared = {case.nodeid: ready for case, ready in window[1:]}
        return window

    def _send_ahead(
        self, item: RunnableCase, window: list[tuple[RunnableCase, Prepared | CaseResult]], adapter: Any
    ) -> None:
        """Write the calls of the window's cases that were not written yet, ``item``'s first, up to a
        case whose calls cannot go ahead; calls written for cases no longer in it are given up."""
        adapter.keep_ahead([case.nodeid for case, _ in window])
        for case, ready in window:
            if isinstance(ready, CaseResult):
                continue
            if not _goes_ahead(ready):
                break
            if not adapter.has_sent_ahead(case.nodeid):
                adapter.send_ahead(case.nodeid, ready.call)
                self.ahead += case is not item
        adapter.flush()


def _goes_ahead(prepared: Prepared) -> bool:
    """Whether a case's calls can be written before it runs: not when its method hands over an SDK
    client (its HTTP is bridged by the case's own run)."""
    method = KINDS[prepared.loaded.kind].method
    return method is not None and method.http_client is None


class ThreadRunner(CaseRunner):
    """On a worker thread, abandoned when a case overruns (the fallback where forking is not an option)."""

    name = "thread"

    def __init__(self, session: CaseHost) -> None:
        super().__init__(session)
        self.timer = TimedRunner()
        self._warm = False

    @property
    def abandoned(self) -> int:
        return self.timer.abandoned

    def close(self) -> None:
        self.timer.close()
        super().close()

    def run(self, item: RunnableCase) -> CaseResult:
        if not self._warm:
            warm_imports(i for i in item.session.items if is_runnable(i))
            self._warm = True
        self._install_guard()
        self._recorded = []
        watch = self.session.watch(item.corpus_root)
        timeout = self.session.timeout
        worker = self.timer.ensure_worker() if timeout else threading.current_thread()
        ctx = self.session.context(item.corpus_root)
        prepared = prepare_case(self.session, item.loaded, item.corpus_root)
        if isinstance(prepared, CaseResult):
            return prepared
        try:
            with _network_watch(lambda: worker.ident or 0) as attempts:
                called = self.timer.run(lambda: call_case(self.session, prepared), timeout)
        except CaseTimeout as exc:
            for exchange in ctx.opened:  # an abandoned recording writes nothing, now or later
                exchange.cancel()
            exc.recorded = tuple(self._recorded)
            raise
        result = called if isinstance(called, CaseResult) else judge_case(called)  # the harness's time
        result.attempts = attempts
        result.recorded = list(self._recorded)
        _look(result, watch, self._recorded)
        return result


# --- the process runner -------------------------------------------------------------------------------


_FROM_THE_RUNNER = {
    ("wireconf.pytest_plugin.case_run", "CaseResult"): CaseResult,
    ("wireconf.differences", "Difference"): Difference,
}
"""The only classes the pytest process builds from what the runner process sends (besides plain data)."""


def receive(conn: Connection) -> Any:
    """The next message from the runner process, read as plain data, ``CaseResult``s and
    ``Difference``s only: a runtime shares that process and can write to the pipe, and the pytest
    process must never run what it wrote (``Connection.recv`` would unpickle anything). Raises
    ``EOFError`` / ``OSError`` as ``recv`` does, and ``pickle.UnpicklingError`` for anything else."""
    return loads_only(conn.recv_bytes(), _FROM_THE_RUNNER)


class StrayMessage(WireconfError, ValueError):
    """What came out of the runner's pipe is not a message of the case it runs."""


class RunnerStartError(WireconfError):
    """The case-runner process could not be started (it did not answer, or ended at once)."""


def _check_message(message: Any, number: int) -> None:
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


def _isolate(passage: socket.socket | None) -> str:
    """Give this (new, one-threaded) process no network and no capability to get it back; in record
    mode, ``passage`` is its end of the way out through the pytest process. Describes what it got."""
    isolated, how = netns.unshare_network(loopback=True)  # the provider emulator listens there
    if not isolated:
        return f"{GUARD_ONLY}; no namespace: {how}"
    if passage is not None:
        GUARD.passage = Passage(passage)
        how += ", the recording transport's requests sent by the pytest process to the providers alone"
    return how


class _Progress:
    """Where the runner process marks the moment it starts a case and the moment the case's adapter call
    starts (``--case-timeout`` runs from there, the preparation has a budget of its own): a shared page,
    read by the pytest process only when it has to decide on a time limit, so that a case costs no
    message for it.

    Each mark is a slot of (case number, time): the runner writes the time, then the number; x86 and
    ARM keep two stores to one page in order for a reader that sees the second."""

    _SLOT = struct.Struct("=Qd")

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, 3 * self._SLOT.size)  # anonymous and shared: a fork sees the same page

    def _mark(self, slot: int, case: int) -> None:
        offset = slot * self._SLOT.size
        struct.pack_into("=d", self._page, offset + 8, time.monotonic())
        struct.pack_into("=Q", self._page, offset, case)

    def started(self, case: int) -> None:
        self._mark(0, case)

    def called(self, case: int) -> None:
        self._mark(1, case)

    def judging(self, case: int) -> None:
        self._mark(2, case)

    def started_at(self, case: int) -> float | None:
        """When the runner started case number ``case``, while it is the latest it started."""
        seen, at = self._SLOT.unpack_from(self._page, 0)
        return at if seen == case else None

    def of(self, case: int) -> tuple[str, float | None]:
        """Where case number ``case`` is: ``("judging", t)`` (the adapter call returned, the harness
        judges since ``t``), ``("called", t)`` (its adapter call started at ``t``, on
        ``time.monotonic()``, the same clock in both processes), ``("preparing", t)``, ``("answered",
        None)`` (a later case started: its answer is on the pipe) or ``("queued", None)``."""
        started = self._SLOT.unpack_from(self._page, 0)[0]
        if started > case:
            return "answered", None
        seen, at = self._SLOT.unpack_from(self._page, 2 * self._SLOT.size)
        if seen == case:
            return "judging", at
        seen, at = self._SLOT.unpack_from(self._page, self._SLOT.size)
        if seen == case:
            return "called", at
        at = self.started_at(case)
        return ("queued", None) if at is None else ("preparing", at)


def _serve(session: CaseHost, conn: Connection, progress: _Progress, passage: socket.socket | None) -> None:
    """The runner process: isolate, then run the cases the pytest process sends, one at a time, in the
    order sent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the pytest process's to handle
    os.setpgid(0, 0)  # a group of its own: whatever the runtime starts is killed with it
    _die_with_parent()
    network = _isolate(passage)
    GUARD.install()
    recorded: list[str] = []  # this case's recordings, which the watch leaves out

    def on_recorded(path: str) -> None:
        recorded.append(path)
        conn.send(("recorded", path))

    session.on_recorded = on_recorded
    records = _LogRecords()
    root = logging.getLogger()
    root.handlers[:] = [records]  # the pytest process handles them (capture, live logs, files)
    conn.send(("hello", network))
    main = threading.get_ident()
    queued: deque[tuple[int, str]] = deque()
    while True:
        if not queued:
            try:
                queued.extend(conn.recv())  # one case, or several sent ahead at once
            except (EOFError, OSError):
                return
        number, nodeid = queued.popleft()
        progress.started(number)
        item = session.case_items[nodeid]
        stdout, stderr = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err = io.StringIO(), io.StringIO()
        records.records = []
        recorded.clear()
        mark, before = GUARD.mark(), _threads() - {main}
        try:
            watch = session.watch(item.corpus_root)  # this process's own when it was forked before it
            prepared = prepare_case(session, item.loaded, item.corpus_root)
            if isinstance(prepared, CaseResult):
                result = prepared
            else:
                progress.called(number)  # the runtime's part starts: --case-timeout from here
                result = finish_case(session, prepared, functools.partial(progress.judging, number))  # ends
            _look(result, watch, recorded)
        except BaseException:
            result = CaseResult(
                "error", f"the harness failed on this case (a wireconf bug):\n{traceback.format_exc()}"
            )
        finally:
            sys.stdout, sys.stderr = stdout, stderr
        result.attempts = charged(GUARD.since(mark), before, main)
        result.stdout, result.stderr, result.logs = out.getvalue(), err.getvalue(), records.records
        try:
            conn.send(("done", number, result))
        except Exception as exc:  # something in the result does not pickle: send what does
            result.logs = []
            result.message = f"{result.message}\n(the case's log records could not be sent: {exc!r})"
            conn.send(("done", number, result))


def _status(code: int) -> str:
    code = os.waitstatus_to_exitcode(code)
    return f"exit status {code}" if code >= 0 else f"killed by signal {-code}"


@dataclass
class _Sent:
    """A case sent to the runner process and not answered yet."""

    number: int
    nodeid: str
    at: float  # time.monotonic() when it was sent


class ForkedRunner(CaseRunner):
    """Cases run in a forked process that is killed when one overruns (see the module docstring)."""

    name = "process"
    network = "a runner process with a network namespace of its own (started at the first case)"
    AHEAD = 64
    """Cases sent beyond the one pytest waits for (one on an xdist worker: it knows only the next). The
    cases come file by file, and a file's cases cost the runner alike (a stream file's much more than
    a wire file's): a long lead lets it work through quick cases while this process reports slow ones.
    The lead is topped up in one message once half of it is used (one send and one receive for many
    cases), and only while the pipe has room: were this process to block on a send while the runner
    blocks on sending answers, neither would go on."""

    def __init__(self, session: CaseHost) -> None:
        super().__init__(session)
        self._pid: int | None = None
        self._conn: Connection | None = None
        self._poller: select.poll | None = None
        self._room: select.poll | None = None
        self._progress = _Progress()
        self._sent: deque[_Sent] = deque()
        self._cases = 0
        self.forks = 0
        self.ahead = 0
        """Cases started before pytest asked for them (while it reported the one before)."""

    def _start(self, item: RunnableCase) -> Connection:
        if self.forks == 0:
            warm_up(self.session, item)
        ours, theirs = Pipe()
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
                _serve(self.session, theirs, self._progress, passage[0] if passage else None)
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
        self._poller = select.poll()  # one for the runner's life (Connection.poll builds a selector per call)
        self._poller.register(ours.fileno(), select.POLLIN)
        self._room = select.poll()
        self._room.register(ours.fileno(), select.POLLOUT)
        self.forks += 1
        if not ours.poll(START_TIMEOUT):
            self._stop()
            raise RunnerStartError(f"the case-runner process did not start within {START_TIMEOUT:g} s")
        try:
            _, self.network = receive(ours)
        except (EOFError, OSError, pickle.UnpicklingError, ValueError):
            raise RunnerStartError(f"the case-runner process ended as it started ({self._stop()})") from None
        return ours

    def _detach(self) -> int | None:
        """Forget the runner process and what was sent to it, close the pipe; its pid, if there was one."""
        pid, conn = self._pid, self._conn
        self._pid = self._conn = self._poller = self._room = None
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
        _, status = os.waitpid(pid, 0)
        return _status(status)

    def _ended(self) -> str:
        """Reap a runner process that ended on its own (and kill what it left running); its status."""
        pid = self._detach()
        assert pid is not None
        kill_group(pid)
        _, status = os.waitpid(pid, 0)
        return _status(status)

    def _ready(self, seconds: float | None) -> bool:
        """Whether the runner's answer arrived within ``seconds`` (``None``: wait for it)."""
        assert self._poller is not None
        return bool(self._poller.poll(None if seconds is None else max(0, math.ceil(seconds * 1000))))

    def _send(self, conn: Connection, items: list[RunnableCase]) -> None:
        """Send ``items`` in one message; the runner runs them in this order."""
        now, first = time.monotonic(), self._cases + 1
        sent = [_Sent(first + i, item.nodeid, now) for i, item in enumerate(items)]
        conn.send([(case.number, case.nodeid) for case in sent])
        self._cases += len(sent)
        self._sent.extend(sent)

    def _queued(self, item: RunnableCase) -> _Sent:
        """The runner's entry for ``item``: the one sent ahead, or one sent now."""
        if self._sent and self._sent[0].nodeid == item.nodeid:
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
        if self._conn is None or self._room is None or self.session.records:
            return
        lead = len(self._sent) - 1  # the first one sent is the case pytest waits for
        if lead > self.AHEAD // 2 or not self._room.poll(0):  # no room: the cases go when they are due
            return
        batch: list[RunnableCase] = []
        while lead + len(batch) < self.AHEAD:
            upcoming = self.session.plan.after(item, len(self._sent) + len(batch))  # sent in plan order
            if upcoming is None:
                break
            batch.append(upcoming)
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
        conn = self._conn
        assert conn is not None
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
                if not self._ready(wait):
                    passed = deadline is not None and time.monotonic() >= deadline
                    if passed and self._progress.of(sent.number) == (state, at):  # not moved on since
                        self._stop()
                        begun = self._progress.started_at(sent.number) or sent.at
                        raise self._timed_out(timeout, state, begun, at or begun, tuple(recorded))
                    continue  # the deadline, or the mark, is looked at again
                try:
                    message = receive(conn)
                    _check_message(message, sent.number)
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
                if message[0] == "recorded":
                    recorded.append(message[1])
                elif message[0] == "done":
                    _, _, result = message
                    self._sent.popleft()
                    result.recorded = recorded
                    return cast(CaseResult, result)
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


_REAPERS: set[threading.Thread] = set()


def kill_group(pid: int) -> None:
    """Kill a runner process and every process of its group (what the runtime started)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def reap_later(pid: int) -> None:
    """Reap a killed process on a thread of its own. The kernel takes some 10 ms to tear a forked copy
    of this process down, which the end of a session need not wait for: nothing of it runs after the
    kill. The thread is not a daemon, so the interpreter still waits for it at exit and no process
    is left for an init that may not reap it."""

    def reap() -> None:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        _REAPERS.discard(thread)

    thread = threading.Thread(target=reap, name=f"wireconf-reaper-{pid}")
    _REAPERS.add(thread)
    thread.start()


def wait_reaped() -> None:
    """Wait until every runner process killed so far is reaped (its CPU time then counts among this
    process's children, which is what a benchmark reads)."""
    for thread in list(_REAPERS):
        thread.join()


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
    if not result.logs:
        return
    values = key_values()
    for data in result.logs:
        record = logging.makeLogRecord(data)
        if values:
            record.msg = redact(str(record.msg), values)
            record.exc_text = redact(record.exc_text, values) if record.exc_text else record.exc_text
        logging.getLogger(record.name).handle(record)
