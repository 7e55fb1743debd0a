"""What the gate waits for (``wireconf.emulator.settle``): the runtime at the other end of a connection
read every byte it was sent and stopped, seen in ``/proc``: the client end's receive queue, its
holders' threads' states and CPU times. A runtime that has not read, or is working (a pause on the
CPU), is not settled; one blocked for more bytes is, in this process or in a child process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from wireconf.core.stream_probe import SETTLE_SPAN as SPAN
from wireconf.emulator import settle

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads Linux's /proc")


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.create_server(("127.0.0.1", 0))
    yield server
    server.close()


def until(predicate, limit: float = 30.0) -> bool:
    """Polls ``predicate`` (each call of ``settled`` takes its span) until true or ``limit`` passes."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if predicate():
            return True
    return False


def test_unread_bytes_and_a_working_reader_are_not_settled_a_blocked_reader_is(listener):
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    go, work, done = threading.Event(), threading.Event(), threading.Event()

    def runtime() -> None:
        go.wait()
        assert client.recv(4096) == b"x" * 100  # everything sent, in one read
        if work.is_set():
            end = time.monotonic() + 1.0
            while time.monotonic() < end:  # on the CPU, as a collection's pause
                pass
        done.set()
        client.recv(1)  # blocked for more, as a runtime waiting for the next event

    reader = threading.Thread(target=runtime, daemon=True)
    reader.start()
    try:
        found = settle.watch(accepted)
        assert found is not None and found.client == client.getsockname()
        accepted.sendall(b"x" * 100)
        assert until(lambda: found.look().unread == 100, 5)
        assert not found.settled(SPAN), "100 bytes are unread"
        work.set()
        go.set()
        assert until(lambda: found.look().unread == 0, 5)
        assert not done.is_set() and not found.settled(SPAN), "the reader works on what it read"
        assert until(lambda: found.settled(SPAN))
        assert done.is_set(), "settled only once the reader stopped"
    finally:
        accepted.sendall(b"y")
        reader.join(5)
        client.close()
        accepted.close()


def test_a_runtime_in_a_child_process_is_watched_there(listener):
    """An ``exec:`` runtime holds the client end in a process of its own (a descendant of this one)."""
    host, port = listener.getsockname()
    code = (
        "import socket,sys; c=socket.create_connection((sys.argv[1],int(sys.argv[2]))); "
        "c.recv(4096); print('read', flush=True); c.recv(1)"
    )
    child = subprocess.Popen([sys.executable, "-c", code, host, str(port)], stdout=subprocess.PIPE, text=True)
    try:
        accepted, _ = listener.accept()
        found = settle.watch(accepted)
        assert found is not None and child.pid in found.pids
        accepted.sendall(b"x" * 10)
        assert child.stdout is not None and child.stdout.readline() == "read\n"
        assert until(lambda: found.settled(SPAN))
        accepted.sendall(b"y")
        assert child.wait(10) == 0
        assert found.look().unread is None, "the connection is gone: nothing to wait for"
    finally:
        child.kill()


def test_a_runnable_thread_is_never_idle():
    """Waiting for a CPU on a loaded machine is state ``R``: not settled, whatever its CPU time says."""
    assert not settle.Snapshot(0, {(1, 1): ("R", 5)}).idle()
    assert not settle.Snapshot(3, {(1, 1): ("S", 5)}).idle()
    assert settle.Snapshot(0, {(1, 1): ("S", 5), (1, 2): ("D", 9)}).idle()


def test_a_connection_no_process_here_holds_is_not_watched(listener):
    """What ``/proc`` cannot show gets no watch (the gate keeps its clock)."""
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    client.close()
    accepted.close()
    assert settle.watch(accepted) is None


def test_a_look_reads_no_thread_while_bytes_are_unread(listener, monkeypatch):
    """Bytes unread already say "not settled": the look does not read every thread's two files (each
    read hands the interpreter's lock to the runtime's thread and back while it works)."""
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    try:
        found = settle.watch(accepted)
        assert found is not None
        read: list[int] = []
        real = settle._threads
        monkeypatch.setattr(settle, "_threads", lambda watched: read.append(1) or real(watched))
        accepted.sendall(b"x" * 10)
        assert until(lambda: found.look().unread == 10, 5)
        assert read == [], "threads read while bytes were unread"
        assert client.recv(10) == b"x" * 10
        assert until(lambda: found.look().unread == 0, 5)
        assert read, "nothing unread: the threads are the question"
    finally:
        client.close()
        accepted.close()


def test_this_processs_thread_files_are_kept_across_watches_and_closed_when_the_thread_ends(listener):
    """A runtime in this process is looked at by every gated stream's watch: its threads' files are
    opened once (``_OwnTasks``), not per watch, and a thread that ended has its files closed."""
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=True)
    worker.start()
    try:
        first = settle.watch(accepted)
        assert first is not None
        key = (os.getpid(), worker.native_id)

        def read() -> bool:  # a look stops at the first runnable thread (another test's, on a loaded machine)
            first.look()
            return key in settle._OWN.files

        assert until(read, 10), "the thread's files are kept"
        kept = settle._OWN.files[key]
        first.close()
        second = settle.watch(accepted)
        assert second is not None
        second.look()
        assert settle._OWN.files.get(key) == kept, "the next watch reads the same descriptors"
        assert not settle._holds(os.getpid(), 0) and str(kept[0]) in settle._OWN.fds()
        stop.set()
        worker.join(5)

        def gone() -> bool:  # the kernel lists the task a moment past join()
            second.look()
            return key not in settle._OWN.files

        assert until(gone, 5)
        for fd in kept:
            with pytest.raises(OSError):
                os.fstat(fd)
    finally:
        stop.set()
        client.close()
        accepted.close()


def test_a_connection_closed_while_its_holder_is_sought_is_settled_at_once(listener, monkeypatch):
    """The runtime closed its end between the kernel's first answer and the search for its holder (it
    stopped reading at its provider's terminal event): its watch is settled at once, without a walk of
    every process's ``/proc`` for a holder that is gone."""
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()

    def closed_meanwhile(pid: int, inode: int) -> bool:
        client.close()
        return False

    def no_walk(root: int) -> list[int]:
        raise AssertionError("every process was walked for a connection that is gone")

    monkeypatch.setattr(settle, "_holds", closed_meanwhile)
    monkeypatch.setattr(settle, "_descendants", no_walk)
    try:
        found = settle.watch(accepted)
        assert found is not None and found.pids == (os.getpid(),)
        started = time.monotonic()
        assert found.settled(SPAN)
        assert time.monotonic() - started < SPAN, "settled without waiting its span"
    finally:
        client.close()
        accepted.close()


def test_a_forked_child_starts_with_no_thread_files_and_a_free_lock(listener):
    """A child forked while a gate looks (its lock held) has neither the parent's threads' files nor a
    lock no thread of its own will release."""
    client = socket.create_connection(listener.getsockname())
    accepted, _ = listener.accept()
    try:
        found = settle.watch(accepted)
        assert found is not None
        assert until(lambda: (found.look(), bool(settle._OWN.files))[1], 10)
        kept = [fd for pair in settle._OWN.files.values() for fd in pair]
        with settle._OWN.lock:
            child = os.fork()
            if child == 0:  # pragma: no cover - the child's verdict is its exit status
                closed = all(_closed(fd) for fd in kept)
                os._exit(0 if closed and not settle._OWN.files and not settle._OWN.lock.locked() else 1)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert all(not _closed(fd) for fd in kept), "the parent keeps its own"
    finally:
        client.close()
        accepted.close()


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False
