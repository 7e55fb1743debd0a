"""The runner process: forked from the pytest process, isolated, it runs the cases it is sent."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import io
import logging
import os
import signal
import socket
import sys
import threading
import traceback
from collections import deque
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING

from wireconf.cassettes import netns
from wireconf.cassettes.network_guard import GUARD, charged
from wireconf.cassettes.passage import Passage
from wireconf.pytest_plugin.case_run import CaseResult, finish_case, prepare_case
from wireconf.pytest_plugin.runners.base import GUARD_ONLY, look, threads
from wireconf.pytest_plugin.runners.logs import LogRecords
from wireconf.pytest_plugin.runners.pipe import send

if TYPE_CHECKING:
    from wireconf.pytest_plugin.case_host import CaseHost
    from wireconf.pytest_plugin.runners.progress import Progress


def _die_with_parent() -> None:
    with contextlib.suppress(Exception):
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _isolate(passage: socket.socket | None) -> str:
    """Give this (new, one-threaded) process no network and no capability to get it back; in record
    mode, ``passage`` is its end of the way out through the pytest process. Describes what it got."""
    isolated, how = netns.unshare_network(
        read_only=netns.protected(),
        loopback=True,  # the corpora read-only; the emulator listens there
    )
    if not isolated:
        return f"{GUARD_ONLY}; no namespace: {how}"
    if passage is not None:
        GUARD.passage = Passage(passage)
        how += ", the recording transport's requests sent by the pytest process to the providers alone"
    return how


def serve(session: CaseHost, conn: Connection, progress: Progress, passage: socket.socket | None) -> None:
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
        send(conn, ("recorded", path))

    session.on_recorded = on_recorded
    records = LogRecords()
    root = logging.getLogger()
    root.handlers[:] = [records]  # the pytest process handles them (capture, live logs, files)
    send(conn, ("hello", network))
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
        mark, before = GUARD.mark(), threads() - {main}
        try:
            watch = session.watch(item.corpus_root)  # this process's own when it was forked before it
            prepared = prepare_case(session, item.loaded, item.corpus_root)
            if isinstance(prepared, CaseResult):
                result = prepared
            else:
                progress.called(number)  # the runtime's part starts: --case-timeout from here
                result = finish_case(session, prepared, functools.partial(progress.judging, number))  # ends
            look(result, watch, recorded)
        except BaseException:
            result = CaseResult(
                "error", f"the harness failed on this case (a wireconf bug):\n{traceback.format_exc()}"
            )
        finally:
            sys.stdout, sys.stderr = stdout, stderr
        result.attempts = charged(GUARD.since(mark), before, main)
        result.stdout, result.stderr, result.logs = out.getvalue(), err.getvalue(), records.records
        try:
            send(conn, ("done", number, result))
        except Exception as exc:  # something in the result does not pickle: send what does
            result.logs = []
            result.message = f"{result.message}\n(the case's log records could not be sent: {exc!r})"
            send(conn, ("done", number, result))
