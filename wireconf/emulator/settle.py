"""Whether the runtime at the other end of an emulator connection has *settled*: read every byte the
emulator wrote to it, and stopped working on them. The hold-last-event gate waits for this before it
writes a stream's last event, in place of a clock.

Over HTTP the harness cannot hear a runtime ask for more, but the kernel can say both halves of it:

- **read**: the client end's receive queue is empty. The kernel's socket diagnostics (``sock_diag``
  over netlink, what ``ss`` reads; ``Diag``) look the one socket up by its addresses, in the network
  namespace the netlink socket was made in: this process's, or, for a listener handed over from a
  runtime's namespace, one made there and handed over with it (``netns.hand_over_listener``);
- **stopped**: no thread of the processes that hold the client end (nor of this process, whose threads
  take an out-of-process runtime's items off its pipe) is runnable (state ``R``: running, or waiting
  for a CPU on a loaded machine) or used any CPU time (``/proc/<pid>/task/<tid>/schedstat``, in
  nanoseconds) over the span the gate asks about; the emulator's own threads (the gate's among
  them, reading these files) are left out.

A runtime in a garbage-collection pause, or waiting for a CPU on a loaded machine, is runnable or
using CPU, so it is never taken for one that waits for more bytes; one that buffers reads everything
sent, blocks for the rest and is settled with no item yielded. Where the kernel does not show the
connection (another system, a process this one may not inspect), ``watch`` returns ``None`` and the
gate keeps its clock (``StreamProbe.hold``).
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

PROC = Path("/proc")

OWN_THREADS = "wireconf-emulator"
"""The name (a prefix) of the emulator's threads: its servers' (which wake to check for a shutdown) and
its connections'. They are the harness's, not the runtime's: never watched."""

SAMPLE = 0.025
"""Seconds between two looks at a runtime that is not settled yet (it works, or has bytes unread)."""

_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST = 1
_NLMSG_ERROR = 2
_NO_COOKIE = 0xFFFFFFFF
_ESTABLISHED = 1
_HEADER = struct.Struct("=IHHII")  # struct nlmsghdr
_REQUEST = struct.Struct("=BBBBI")  # struct inet_diag_req_v2, before its inet_diag_sockid
_QUEUES = struct.Struct("=IIIII")  # inet_diag_msg's expires, rqueue, wqueue, uid, inode
_SOCKID_SIZE = 48


class Diag:
    """A ``NETLINK_SOCK_DIAG`` socket: asks the kernel for one TCP socket of its network namespace by its
    local and remote address (no dump: a lookup, microseconds). Shared by the emulator's connection
    threads, one question at a time."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._lock = threading.Lock()
        self._seq = 0

    @classmethod
    def here(cls) -> Diag | None:
        """This process's (its current network namespace's), made on first use; ``None`` where netlink
        has no socket diagnostics (not Linux)."""
        global _HERE
        with _HERE_LOCK:
            if _HERE is None or _HERE[0] != os.getpid():
                try:
                    made = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG)
                except (AttributeError, OSError):
                    return None
                _HERE = (os.getpid(), cls(made))
            return _HERE[1]

    def close(self) -> None:
        self._sock.close()

    def socket_of(
        self, family: int, local: tuple[str, int], remote: tuple[str, int]
    ) -> tuple[int, int, int] | None:
        """``(state, unread bytes, inode)`` of the TCP socket whose own end is ``local`` and peer
        ``remote``; ``None`` where there is none (closed and gone)."""
        sockid = (
            struct.pack("!HH", local[1], remote[1])
            + socket.inet_pton(family, local[0]).ljust(16, b"\0")
            + socket.inet_pton(family, remote[0]).ljust(16, b"\0")
            + struct.pack("=III", 0, _NO_COOKIE, _NO_COOKIE)
        )
        body = _REQUEST.pack(family, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF) + sockid
        with self._lock:
            self._seq += 1
            self._sock.send(
                _HEADER.pack(_HEADER.size + len(body), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, self._seq, 0)
                + body
            )
            while True:  # an answer to an earlier question that timed out is skipped by its number
                data = self._sock.recv(65536)
                if len(data) >= _HEADER.size and _HEADER.unpack_from(data)[3] == self._seq:
                    break
        kind = _HEADER.unpack_from(data)[1]
        if kind == _NLMSG_ERROR or len(data) < _HEADER.size + 4 + _SOCKID_SIZE + _QUEUES.size:
            return None
        state = data[_HEADER.size + 1]
        _, unread, _, _, inode = _QUEUES.unpack_from(data, _HEADER.size + 4 + _SOCKID_SIZE)
        return state, unread, inode


_HERE: tuple[int, Diag] | None = None
_HERE_LOCK = threading.Lock()


@dataclass(frozen=True)
class Snapshot:
    """What one look at the runtime's side saw: the client end's unread bytes (``None``: the connection
    is gone, nothing more will be read), and each watched thread's state letter and CPU time (ns), read
    only when nothing is unread (``Watch.look``)."""

    unread: int | None
    threads: dict[tuple[int, int], tuple[str, int]]

    def idle(self) -> bool:
        return not self.unread and all(state != "R" for state, _ in self.threads.values())


@dataclass(frozen=True)
class Watch:
    """The client end of one connection: how to ask the kernel about it, its addresses, and the
    processes to watch (those holding it, and this one)."""

    diag: Diag
    family: int
    client: tuple[str, int]
    server: tuple[str, int]
    pids: tuple[int, ...]
    own: frozenset[int]
    """Native ids of this process's threads that are the emulator's (``OWN_THREADS``), the gate's
    among them: not watched."""
    files: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict, compare=False, repr=False)
    """Each watched thread of another process: its ``stat`` and ``schedstat`` opened once and read
    again at each look (``os.pread``: procfs makes a file's text anew at offset 0), not opened and
    closed per look; closed by ``close``. This process's threads' are kept for every watch
    (``_OwnTasks``)."""

    def close(self) -> None:
        """The gate is done: the ``/proc`` files it kept open are closed."""
        for fds in self.files.values():
            for fd in fds:
                os.close(fd)
        self.files.clear()

    def unread(self) -> int | None:
        """The client end's unread bytes; ``None`` once no process holds it (closed: the kernel keeps
        an orphaned socket, inode 0, until its FIN is answered) or it is gone: it will read nothing more."""
        try:
            found = self.diag.socket_of(self.family, self.client, self.server)
        except OSError:  # its namespace's listener was retired (the runtime is gone)
            return None
        return found[1] if found is not None and found[2] else None

    def look(self) -> Snapshot:
        """The client end's unread bytes, and its holders' threads only where that is still a question:
        a look that finds bytes unread (not settled) or the connection gone (settled at once) has its
        answer without reading each thread's two files."""
        unread = self.unread()
        return Snapshot(unread, _threads(self) if unread == 0 else {})

    def settled(self, span: float) -> bool:
        """Blocks for up to ``span`` seconds: whether a look at its start and one at its end saw nothing
        unread, no runnable thread and no CPU used in between. Two looks are enough: a thread's CPU time
        only grows, so one that woke and slept again in between used some, and the unread bytes only
        shrink by a read (the gate writes nothing while it holds). A client end no process holds any
        more is settled at once, whatever the threads do: the runtime closed it (a runtime that stops
        reading at its provider's terminal event, before the held one) and reads nothing more, so
        waiting would only watch the next case's work."""
        first = self.look()
        if first.unread is None:
            return True
        if not first.idle():
            time.sleep(SAMPLE)
            return False
        time.sleep(span)
        now = self.look()
        return now.unread is None or (now.idle() and now.threads == first.threads)


def watch(connection: socket.socket, diag: Diag | None = None) -> Watch | None:
    """The watch over ``connection``'s client end (a connection the emulator accepted; ``diag``: one
    made in its network namespace, where that is not this process's), or ``None`` where the kernel does
    not show it. The runtime holding it is this process or one below it."""
    diag = diag if diag is not None else Diag.here()
    if diag is None:
        return None
    try:
        server = connection.getsockname()[:2]
        client = connection.getpeername()[:2]
        found = diag.socket_of(connection.family, client, server)
    except OSError:
        return None
    if found is None or found[0] != _ESTABLISHED or not found[2]:
        return None
    inode, me = found[2], os.getpid()
    # an in-process runtime holds it here; an ``exec:`` one in a process below this one
    holders = [me] if _holds(me, inode) else []
    if not holders:
        try:
            again = diag.socket_of(connection.family, client, server)
        except OSError:
            return None
        if again is None or again[0] != _ESTABLISHED or again[2] != inode:
            # closed since the first look (a runtime that stopped reading at its provider's terminal
            # event): no process holds it, and its watch is settled at once (``Watch.settled``),
            # without a walk of every process's ``/proc`` looking for a holder that is gone
            holders = [me]
        else:
            holders = [pid for pid in _descendants(me) if _holds(pid, inode)]
    if not holders:
        return None
    pids = tuple(dict.fromkeys([*holders, me]))
    own = {thread.native_id for thread in threading.enumerate() if thread.name.startswith(OWN_THREADS)}
    own.add(threading.get_native_id())
    return Watch(diag, connection.family, client, server, pids, frozenset(n for n in own if n is not None))


# -- reading /proc ---------------------------------------------------------------------------------


def _holds(pid: int, inode: int) -> bool:
    target = f"socket:[{inode}]"
    fds = f"/proc/{pid}/fd/"
    try:
        names = os.listdir(fds)
    except OSError:
        return False
    # this process's thread files the gate keeps open (``_OwnTasks``) are no socket: not read
    kept = _OWN.fds() if pid == os.getpid() else frozenset()
    for name in names:
        if name in kept:
            continue
        try:
            if os.readlink(fds + name) == target:
                return True
        except OSError:
            continue
    return False


def _descendants(root: int) -> list[int]:
    """Every process below ``root``, from each process's parent in ``/proc/<pid>/stat``."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir(PROC):
        if entry.name.isdigit():
            parent = _stat_fields(PROC / entry.name / "stat")
            if parent is not None:
                children.setdefault(int(parent[1]), []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _stat_fields(path: Path) -> list[str] | None:
    """The fields of a ``stat`` file after the command's name (which may hold spaces and parentheses):
    ``[state, ppid, ...]``."""
    try:
        text = path.read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()


def _threads(watched: Watch) -> dict[tuple[int, int], tuple[str, int]]:
    """Each watched thread's state letter and CPU time (ns), up to the first runnable one (the look is
    not idle: the rest are not read). This process's threads that are the
    emulator's are left out as they are now, not as they were when the watch began: a connection
    accepted since (another stream's gate, looking on its own) is the harness's too. A thread's two
    files are opened at the first look that lists it and read again at each (``Watch.files``;
    ``_OwnTasks`` for this process's)."""
    found: dict[tuple[int, int], tuple[str, int]] = {}
    me = os.getpid()
    own = watched.own | {
        t.native_id
        for t in threading.enumerate()
        if t.name.startswith(OWN_THREADS) and t.native_id is not None
    }
    for pid in watched.pids:
        tasks = f"/proc/{pid}/task/"
        try:
            tids = os.listdir(tasks)
        except OSError:
            continue
        if pid == me:
            with _OWN.lock:
                _OWN.keep_only(tids)
                runnable = _read(pid, tasks, tids, own, _OWN.files, found)
        else:
            runnable = _read(pid, tasks, tids, frozenset(), watched.files, found)
        if runnable:
            break
    return found


def _read(
    pid: int,
    tasks: str,
    tids: list[str],
    skipped: frozenset[int],
    files: dict[tuple[int, int], tuple[int, int]],
    found: dict[tuple[int, int], tuple[str, int]],
) -> bool:
    """Each thread of ``tids`` (but ``skipped``): its state letter and CPU time into ``found``, its
    files opened into ``files`` at the first read and read again at each. Stops at the first runnable
    thread (returns ``True``): the look is not idle whatever the others say, and each read costs
    more while the runtime works (each ``pread`` hands the interpreter's lock to its thread and back)."""
    for tid in tids:
        key = (pid, int(tid))
        if key[1] in skipped:
            continue
        fds = files.get(key) or _open(f"{tasks}{tid}/")
        if fds is None:
            continue  # the thread ended between the listing and the open
        files[key] = fds
        try:
            stat, schedstat = os.pread(fds[0], 4096, 0), os.pread(fds[1], 4096, 0)
            cpu = int(schedstat.split(None, 1)[0])
        except (OSError, IndexError, ValueError):  # it ended since (ESRCH)
            for fd in files.pop(key):
                os.close(fd)
            continue
        end = stat.rfind(b")")
        if end > 0 and len(stat) > end + 2:
            found[key] = state = (chr(stat[end + 2]), cpu)
            if state[0] == "R":
                return True
    return False


class _OwnTasks:
    """This process's threads' ``stat`` and ``schedstat``, opened once per thread and kept while it
    lives, for every gate of the process: a runtime in this process (LiteLLM keeps ~50 threads) is
    looked at twice or more per gated stream, and opening and closing two files per thread per gate
    cost more than the reads (``benchmarks/emulator_overhead.py``). A thread that is gone is closed
    at the next look (``keep_only``); a forked child starts with none (``_forked``)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.files: dict[tuple[int, int], tuple[int, int]] = {}

    def keep_only(self, tids: list[str]) -> None:
        """Held under ``lock``: the files of the threads not in ``tids`` (ended) closed."""
        listed = {int(tid) for tid in tids}
        for key in [key for key in self.files if key[1] not in listed]:
            for fd in self.files.pop(key):
                os.close(fd)

    def fds(self) -> frozenset[str]:
        """The descriptors kept open, as ``/proc/self/fd`` names them."""
        with self.lock:
            return frozenset(str(fd) for pair in self.files.values() for fd in pair)


_OWN = _OwnTasks()


def _forked() -> None:
    """In a forked child: the parent's threads' files closed and a lock of its own (the parent's may
    have been held by a gate's thread, which the child does not have)."""
    global _OWN
    inherited, _OWN = _OWN.files, _OwnTasks()
    for pair in inherited.values():
        for fd in pair:
            with contextlib.suppress(OSError):
                os.close(fd)


os.register_at_fork(after_in_child=_forked)


def _open(task: str) -> tuple[int, int] | None:
    """The ``stat`` and ``schedstat`` of the thread whose ``/proc`` folder is ``task``, opened."""
    try:
        stat = os.open(task + "stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return stat, os.open(task + "schedstat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        os.close(stat)
        return None
