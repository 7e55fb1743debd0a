"""A process with no network: a Linux network namespace of its own, where nothing but a down loopback
exists, so that no way out of the process (a subprocess such as curl, the raw ``_socket`` module, UDP,
C code) reaches anything.

The harness puts every place a runtime's code runs in one: the forked case runner
(``wireconf.pytest_plugin.runners``) unshares its namespace right after it starts, and ``exec:`` runtime
processes are started through this file run as a script (``python -I -S netns.py --parent=PID
--read-only=ROOT... -- argv...``, ``main``), which asks to die with the pytest process, unshares and
then runs the runtime under an init of its own. Both also get a mount namespace where the run's
corpora are read-only (``read_only_view``): a runtime cannot forge the expectations it is judged
against. Root (``CAP_SYS_ADMIN``) unshares the network alone; other
users unshare a user namespace with it, mapping their own ids to themselves, where the kernel allows
unprivileged user namespaces.

Unsharing is not enough where the process keeps the privilege that made it possible: root with
CAP_SYS_ADMIN can ``setns`` back into the host's namespace (``/proc/<ppid>/ns/net``). So right after
unsharing, every capability but the few over files is dropped, from the bounding set too, so that no
program it executes gets one back (``drop_capabilities``). Chosen over a seccomp filter (which needs a
BPF program written by hand, per architecture, and would not stop ptrace of the parent) and over a
user namespace for root too (which changes what the runtime sees of file ownership): dropping
capabilities is a few system calls, holds for every child and every ``exec``, and the kernel's own
ptrace rule (a tracer needs the tracee's permitted capabilities) then keeps the runner off the pytest
process as well.

Record mode's one way out is not here: the pytest process forwards the recording transport's requests
(``wireconf.cassettes.passage``), to a provider's origin only.

This module imports nothing but the standard library, so that it runs as a script with ``-I -S``.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import struct
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import socket

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNS = 0x00020000

_Folders = list[str] | tuple[str, ...]
"""Folders (``collections.abc`` and ``re`` are left unimported: the launcher starts before every
runtime, with ``-I -S``, and their import is a tenth of its start)."""


def _libc() -> ctypes.CDLL:
    """The C library, through the symbols already loaded in this process (``find_library`` would run
    ``ldconfig`` as a child, which must never happen once a PID namespace is unshared: that child
    would become its first process, and the namespace would end with it)."""
    return ctypes.CDLL(None, use_errno=True)


def _unshare(flags: int) -> None:
    if hasattr(os, "unshare"):  # Python 3.12+
        os.unshare(flags)
        return
    if _libc().unshare(flags) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def _map_ids_to_themselves() -> None:
    """In a new user namespace, keep the process's own uid and gid (files it writes stay its own)."""
    uid, gid = os.getuid(), os.getgid()
    with open("/proc/self/setgroups", "w") as out:
        out.write("deny")
    with open("/proc/self/uid_map", "w") as out:
        out.write(f"{uid} {uid} 1")
    with open("/proc/self/gid_map", "w") as out:
        out.write(f"{gid} {gid} 1")


def unshare_network(pids: bool = False, read_only: _Folders = (), loopback: bool = False) -> tuple[bool, str]:
    """Move this process (called while it has one thread) into a new network namespace with no way
    back: then drop the capabilities that would let it re-enter another (``drop_capabilities``). With
    ``pids``, its next child is also the first process of a new PID namespace (whose every process
    the kernel kills when that first one ends). With ``read_only`` folders (the corpus roots of the
    run, ``protected()``), it also gets a mount namespace of its own where each of them is mounted
    read-only (``read_only_view``), before the capability to undo that is dropped. With ``loopback``,
    the namespace's loopback is brought up first (``loopback_up``: it needs the capability dropped
    next), for the provider emulator.

    Returns whether it did and how (or why not)."""
    if not sys.platform.startswith("linux"):
        return False, f"network namespaces are Linux's ({sys.platform} has none)"
    flags = CLONE_NEWNET | (CLONE_NEWPID if pids else 0) | (CLONE_NEWNS if read_only else 0)
    try:
        _unshare(flags)
        how = "a network namespace of its own"
    except OSError as exc:
        privileged_error = exc
        try:
            _unshare(CLONE_NEWUSER | flags)
            _map_ids_to_themselves()
            how = "a network namespace of its own (in a user namespace)"
        except OSError as exc:
            return False, (
                f"unshare(CLONE_NEWNET) was refused ({privileged_error.strerror}) and so was an "
                f"unprivileged user namespace ({exc.strerror})"
            )
    if read_only:
        try:
            read_only_view(read_only)
            how += ", the corpus read-only"
        except OSError as exc:  # the hashes still catch a change (corpus_guard): say why it is writable
            how += f", the corpus writable (cannot mount {exc.filename} read-only: {exc.strerror})"
    if loopback:
        try:
            loopback_up()
            how += ", its loopback up"
        except OSError as exc:
            how += f", its loopback down ({exc.strerror})"
    try:
        drop_capabilities()
    except OSError as exc:  # isolated, but a privileged runtime could leave: say so, do not run it
        exc.add_note("cannot drop the capabilities after unsharing")  # the system's error, told where
        raise
    return True, how + ", no capability to leave it"


# --- the corpus, read-only ----------------------------------------------------------------------------

_PROTECTED: tuple[str, ...] = ()

MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REMOUNT = 0x20
MS_NOATIME = 0x400
MS_NODIRATIME = 0x800
MS_BIND = 0x1000
MS_REC = 0x4000
MS_PRIVATE = 0x40000
MS_RELATIME = 0x200000
_KEPT_MOUNT_FLAGS = (  # statvfs's ST_* bit -> mount's MS_* bit, for the flags a remount must keep
    (0x2, MS_NOSUID),
    (0x4, MS_NODEV),
    (0x8, MS_NOEXEC),
    (0x400, MS_NOATIME),
    (0x800, MS_NODIRATIME),
    (0x1000, MS_RELATIME),
)


def protect(roots: _Folders) -> None:
    """Make ``roots`` (the corpora the run judges against) what every sandbox this process makes from
    now on shows read-only: the forked case runner's (``unshare_network(read_only=protected())``) and
    the ``exec:`` launcher's (``--read-only``). Set for the run: from the command line's corpora in
    ``pytest_configure``, then from all the collected ones, both before the first sandbox is made."""
    global _PROTECTED
    _PROTECTED = tuple(dict.fromkeys(os.path.abspath(root) for root in roots))


def protected() -> tuple[str, ...]:
    """The folders sandboxes show read-only (``protect``)."""
    return _PROTECTED


def _mount(libc: ctypes.CDLL, source: str | None, target: str, flags: int) -> None:
    encoded = None if source is None else os.fsencode(source)
    if libc.mount(encoded, os.fsencode(target), None, ctypes.c_ulong(flags), None) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno), target)


def _unescaped(field: bytes) -> bytes:
    """A mountinfo field with the kernel's octal escapes (``\\040`` for a space) undone."""
    parts = field.split(b"\\")
    out = bytearray(parts[0])
    for part in parts[1:]:
        out += bytes([int(part[:3], 8)]) + part[3:]
    return bytes(out)


def _mounts_under(root: str) -> list[str]:
    """The mount points at or below ``root`` in this process's mount namespace, outermost first."""
    found = []
    with open("/proc/self/mountinfo", "rb") as mountinfo:
        for line in mountinfo:
            point = os.fsdecode(_unescaped(line.split(b" ")[4]))
            if point == root or point.startswith(root.rstrip("/") + "/"):
                found.append(point)
    return sorted(set(found), key=len)


def read_only_view(roots: _Folders) -> None:
    """In this process's new mount namespace (``CLONE_NEWNS``, still holding ``CAP_SYS_ADMIN`` over
    it): stop every mount propagating back to the host (``/`` made private, recursively: without it the
    read-only mounts below would reach the host's namespace too), bind each root onto itself and
    remount that bind, and every mount below it, read-only. The flags the kernel locks on a mount
    seen from a user namespace (``nosuid``, ``nodev``, ``noexec``, the atime ones) are kept, or the
    remount is refused. Everything else, the cassettes folder among it (record mode writes there), stays
    as it was. Raises ``OSError``."""
    libc = _libc()
    _mount(libc, None, "/", MS_REC | MS_PRIVATE)
    for root in roots:
        if not os.path.isdir(root):
            continue
        _mount(libc, root, root, MS_BIND | MS_REC)
        for point in _mounts_under(root):
            kept = os.statvfs(point).f_flag
            flags = MS_BIND | MS_REMOUNT | MS_RDONLY
            for st_flag, ms_flag in _KEPT_MOUNT_FLAGS:
                flags |= ms_flag if kept & st_flag else 0
            _mount(libc, None, point, flags)


# --- no way back: the capabilities that could re-enter a namespace are dropped --------------------------

KEPT_CAPABILITIES = frozenset({0, 1, 2, 3, 4})
"""CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_FSETID: a root run still reads and
writes the files root could (a checkout owned by another user, a cassette to record). Every other
capability goes: CAP_SYS_ADMIN (``setns``, ``unshare``, ``mount``), CAP_SYS_PTRACE (and, since the
runner's permitted set is no longer a superset of its parent's, ptrace of the pytest process at all),
CAP_SYS_MODULE, CAP_BPF, CAP_NET_ADMIN, CAP_SETPCAP, …"""

_PR_SET_PDEATHSIG = 1
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAPABILITY_VERSION_3 = 0x20080522
_EINVAL = 22


def _last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as source:
            return int(source.read())
    except (OSError, ValueError):
        return 63


def _prctl(libc: ctypes.CDLL, option: int, argument: int) -> int:
    return int(libc.prctl(ctypes.c_int(option), ctypes.c_ulong(argument), *[ctypes.c_ulong(0)] * 3))


def drop_capabilities() -> None:
    """Keep only ``KEPT_CAPABILITIES``, in every set, for this process and whatever it executes.

    The bounding set (so that executing a program, as root, grants nothing back), the ambient set,
    then the effective, permitted and inheritable sets (``capset``), and ``no_new_privs`` (no setuid or
    file-capability program regains any). Without CAP_SYS_ADMIN over the host's namespaces, ``setns``
    into ``/proc/<ppid>/ns/net`` is refused (EPERM), and so is every other way back. Linux
    capabilities are per thread: called while the process has one thread (right after a fork, or in
    the exec launcher), every thread it starts inherits the reduced sets. Raises ``OSError``.

    ctypes, not a library: the ``exec:`` launcher runs this file with ``python -I -S`` before it
    executes the runtime, where no installed package is importable."""
    libc = _libc()
    keep = 0
    for capability in KEPT_CAPABILITIES:
        keep |= 1 << capability
    for capability in range(_last_capability() + 1):
        if capability in KEPT_CAPABILITIES:
            continue
        if _prctl(libc, _PR_CAPBSET_DROP, capability) != 0:
            errno = ctypes.get_errno()
            if errno == _EINVAL:  # a capability this kernel does not know
                continue
            if errno != 1:  # EPERM: no CAP_SETPCAP, so nothing to drop from a bounding set it cannot use
                raise OSError(errno, os.strerror(errno))
    _prctl(libc, _PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)  # EINVAL before Linux 4.3: nothing to clear
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # {effective, permitted, inheritable} for capabilities 0-31, 32-63
    if libc.capget(header, data) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    for index in range(3):
        data[index] &= keep
        data[3 + index] = 0
    if libc.capset(header, data) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    if _prctl(libc, _PR_SET_NO_NEW_PRIVS, 1) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1
_IFREQ = "16sH22x"
"""``struct ifreq`` as the flag ioctls read it: the interface's name, its flags, padding to 40 bytes."""


def loopback_up() -> None:
    """Bring up the loopback of this process's (new) network namespace: called after unsharing and
    before ``drop_capabilities`` (it needs CAP_NET_ADMIN over the namespace). Nothing leaves the
    namespace through it; what listens on it is the provider emulator's listener, made here and served
    by the harness in its own namespace (``wireconf.emulator``), and whatever the runtime itself opens.
    Raises ``OSError``."""
    import fcntl
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as control:
        request = struct.pack(_IFREQ, b"lo", 0)
        flags = struct.unpack(_IFREQ, fcntl.ioctl(control, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(control, _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))


def launcher_command(
    argv: list[str], parent: int, read_only: _Folders = (), isolate: bool = True
) -> list[str]:
    """``argv`` started through this file (``main``): ending when process ``parent`` ends (the
    pytest process), in a network, PID and mount namespace of its own where ``read_only`` folders
    cannot be written, or, without ``isolate``, in none (where the machine cannot make one)."""
    options = [f"--parent={parent}", *(f"--read-only={root}" for root in read_only)]
    if not isolate:
        options = [f"--parent={parent}", "--no-isolation"]
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), *options, "--", *argv]


def isolating(argv: list[str]) -> bool:
    """Whether ``argv`` is a ``launcher_command`` that puts its runtime in namespaces of its own."""
    if argv[3:4] != [os.path.abspath(__file__)] or "--" not in argv:
        return False
    return "--no-isolation" not in argv[: argv.index("--")]


def with_hand_over(argv: list[str], port: int, channel: int) -> list[str]:
    """A ``launcher_command`` that also makes the provider emulator's listener in the runtime's
    namespace: its loopback brought up, a socket listening at ``127.0.0.1:port`` (the port of the
    harness's emulator in its own namespace) sent over the Unix socket ``channel`` (an inherited
    descriptor) before the runtime starts. A command without isolation is returned as it is: its
    runtime reaches the harness's emulator on the host's loopback."""
    if "--no-isolation" in argv or "--" not in argv:
        return argv
    split = argv.index("--")
    return [*argv[:split], f"--emulator-port={port}", f"--hand-over={channel}", *argv[split:]]


_RESERVED: socket.socket | None = None
"""The socket reserved for this process's provider emulator, until the emulator takes it."""
_PORT: tuple[int, int] | None = None
"""The pid of the process that reserved it and its port: the port the harness's emulator listens at,
in its namespace and in each runtime's (``with_hand_over``), for that process's life."""


def _reserve() -> int:
    global _RESERVED, _PORT
    if _PORT is None or _PORT[0] != os.getpid():
        import socket as sockets

        _RESERVED = sockets.create_server(("127.0.0.1", 0))
        _PORT = (os.getpid(), int(_RESERVED.getsockname()[1]))
    return _PORT[1]


def emulator_port() -> int:
    """The port of this process's provider emulator on 127.0.0.1, reserved (a socket listening there,
    ``emulator_socket``) on first use: a runtime started before the emulator is listened for at it."""
    return _reserve()


def emulator_socket() -> socket.socket:
    """The listening socket of this process's provider emulator (at ``emulator_port``), for it to adopt
    once: whichever comes first, the emulator or a runtime's namespace, the port is the same. A forked
    child reserves its own (its parent's socket is in the parent's namespace)."""
    global _RESERVED
    _reserve()
    reserved, _RESERVED = _RESERVED, None
    if reserved is None:  # taken already (an emulator closed and started again): a new port
        global _PORT
        _PORT = None
        return emulator_socket()
    return reserved


def hand_over_listener(port: int, channel: int) -> None:
    """Listen at ``127.0.0.1:port`` in this (new) namespace and send the socket over ``channel``
    (``socket.send_fds``), with a socket-diagnostics socket made here (the emulator's stream gate asks
    it about a connection of this namespace: ``wireconf.emulator.settle``), then close them here: the
    harness serves it (``Emulator.serve_listener``).
    Called after ``loopback_up``; binding needs no capability. What fails is said on stderr and the
    channel closed unsent: the harness then charges every case that asks for an endpoint (an error)."""
    import socket

    with socket.socket(fileno=channel) as handed:
        try:
            with socket.create_server(("127.0.0.1", port)) as listener:
                fds = [listener.fileno()]
                diag: socket.socket | None = None
                try:  # the kernel's socket diagnostics of this namespace, for the emulator's stream gate
                    diag = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 4)  # NETLINK_SOCK_DIAG
                    fds.append(diag.fileno())
                except OSError:
                    pass  # none: the gate keeps its clock for this runtime
                socket.send_fds(handed, [b"listening"], fds)
                if diag is not None:
                    diag.close()
        except OSError as exc:
            sys.stderr.write(f"wireconf: no provider emulator in the runtime's namespace: {exc}\n")


def _probe() -> tuple[bool, str]:
    """Whether a child process can unshare its network here, and mount a folder read-only in it (it
    tries, on an empty folder, then exits)."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="wireconf-probe-")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: try, report, leave (never return into the caller's code)
        try:
            os.close(read)
            try:
                isolated, how = unshare_network(read_only=[folder])
            except OSError as exc:
                isolated, how = False, str(exc.strerror)
            os.write(write, f"{int(isolated)}{how}".encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as reply:
        answer = reply.read().decode()
    os.waitpid(pid, 0)
    os.rmdir(folder)
    return answer[:1] == "1", answer[1:]


_PROBED: tuple[bool, str] | None = None


def available() -> tuple[bool, str]:
    """Whether processes can be given a network namespace here, and how (or why not); probed once."""
    global _PROBED
    if _PROBED is None:
        _PROBED = (
            _probe()
            if sys.platform.startswith("linux") and hasattr(os, "fork")
            else (
                False,
                f"network namespaces are Linux's ({sys.platform} has none)",
            )
        )
    return _PROBED


def _wait_for(pid: int) -> int:
    """Wait for ``pid`` (reaping any other child on the way: an init adopts orphans); its status."""
    while True:
        try:
            ended, status = os.wait()
        except InterruptedError:
            continue
        except ChildProcessError:
            return 1 << 8
        if ended == pid:
            return status


def _forward_signals(pid: int) -> None:
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, lambda number, _: os.kill(pid, number))


def _init(argv: list[str], report: int, launcher: int) -> None:
    """The first process of the PID namespace: starts COMMAND, reaps, and writes COMMAND's wait status
    to ``report`` when it ends (then this ends, and the kernel kills whatever is left in the
    namespace). It dies with the launcher (``PR_SET_PDEATHSIG``). The kernel ignores a signal an init
    has no handler for when it comes from inside its namespace, so COMMAND is not the init itself:
    a runtime that kills itself must still end. ``launcher`` is a pipe the launcher holds open (an
    init's ``getppid()`` is 0: its parent is outside its namespace)."""
    _prctl(_libc(), _PR_SET_PDEATHSIG, signal.SIGKILL)
    if select.select([launcher], [], [], 0)[0]:  # its end closed: the launcher died before the line above
        os._exit(1)
    os.close(launcher)
    runtime = os.fork()
    if runtime == 0:
        os.close(report)
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            sys.stderr.write(f"wireconf: cannot start {argv[0]}: {exc}\n")
        os._exit(127)
    _forward_signals(runtime)
    os.write(report, struct.pack("=i", _wait_for(runtime)))
    os._exit(0)


def _run_in_pid_namespace(argv: list[str]) -> None:
    """Run COMMAND under an init of its own in the PID namespace unshared for it; exit as COMMAND did.

    When COMMAND ends, or this launcher is killed, the kernel kills every process left in the
    namespace: a runtime's children, even daemonised ones, never outlive it."""
    read, write = os.pipe()
    alive, keep = os.pipe()  # ``keep`` stays open in this process, for the init to see it is alive
    init = os.fork()
    if init == 0:
        os.close(read)
        os.close(keep)
        _init(argv, write, alive)
    os.close(write)
    os.close(alive)
    _forward_signals(init)
    _wait_for(init)
    answer = os.read(read, 4)
    status = struct.unpack("=i", answer)[0] if len(answer) == 4 else 1 << 8
    if os.WIFSIGNALED(status):
        if os.WTERMSIG(status) not in (signal.SIGKILL, signal.SIGSTOP):  # the two that have no handler
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status))


def _die_with(parent: int | None) -> None:
    """Be killed (SIGKILL) when the thread that started this process ends, and end now if ``parent``
    (the pytest process) is already gone: it may have died before the signal was asked for. Linux
    only; called again after unsharing, since a change of credentials clears the signal."""
    if sys.platform.startswith("linux"):
        _prctl(_libc(), _PR_SET_PDEATHSIG, signal.SIGKILL)
    if parent is not None and os.getppid() != parent:
        sys.stderr.write(f"wireconf: the harness (process {parent}) is gone; the runtime is not started\n")
        sys.stderr.flush()
        os._exit(1)


USAGE = (
    "usage: netns.py [--parent=PID] [--read-only=FOLDER]... [--no-isolation] "
    "[--emulator-port=PORT --hand-over=FD] -- COMMAND [ARGS...]"
)


def _parse(argv: list[str]) -> tuple[int | None, list[str], bool, tuple[int, int] | None, list[str]]:
    """(``--parent``, the ``--read-only`` folders, ``--no-isolation``, ``(--emulator-port,
    --hand-over)``, COMMAND)."""
    read_only: list[str] = []
    isolate = True
    numbers: dict[str, int] = {}
    while argv and argv[0] != "--":
        option, _, value = argv.pop(0).partition("=")
        if option in ("--parent", "--emulator-port", "--hand-over") and value.isdigit():
            numbers[option] = int(value)
        elif option == "--read-only" and value:
            read_only.append(value)
        elif option == "--no-isolation" and not value:
            isolate = False
        else:
            sys.exit(USAGE)
    command = argv[1:]
    port, channel = numbers.get("--emulator-port"), numbers.get("--hand-over")
    if not command or (port is None) != (channel is None):
        sys.exit(USAGE)
    hand_over = (port, channel) if port is not None and channel is not None else None
    return numbers.get("--parent"), read_only, isolate, hand_over, command


def main(argv: list[str]) -> None:
    """``python -I -S netns.py [--parent=PID] [--read-only=FOLDER]... -- COMMAND...``: end with PID
    (``PR_SET_PDEATHSIG``: the runtime's whole PID namespace, daemons included, ends with this
    process), unshare the network, the PIDs and the mounts (each FOLDER read-only), drop the
    capabilities that could undo it, then run COMMAND. With ``--emulator-port=PORT --hand-over=FD``
    the namespace's loopback comes up and a listener at 127.0.0.1:PORT goes to the harness over FD
    (``hand_over_listener``) before COMMAND starts. With ``--no-isolation`` (no namespace to be had
    here) COMMAND is executed in this process, which keeps the parent-death signal: the runtime ends
    with pytest, but what it starts in a session of its own can outlive it."""
    parent, read_only, isolate, hand_over, command = _parse(list(argv))
    _die_with(parent)
    if not isolate:
        os.execvp(command[0], command)
    try:
        isolated, how = unshare_network(pids=True, read_only=read_only, loopback=hand_over is not None)
    except OSError as exc:
        sys.exit(f"wireconf: {exc.strerror}; the runtime is not started")
    _die_with(parent)
    if not isolated:
        if hand_over is not None:  # never sent: the harness's emulator is on the loopback it shares
            os.close(hand_over[1])
        sys.stderr.write(f"wireconf: the runtime keeps the network: {how}\n")
        os.execvp(command[0], command)
    if hand_over is not None:
        if how.endswith(", its loopback up, no capability to leave it"):
            hand_over_listener(*hand_over)
        else:  # nothing could reach a listener there: the harness hears it from the closed channel
            sys.stderr.write(f"wireconf: no provider emulator in the runtime's namespace: {how}\n")
            os.close(hand_over[1])
    _run_in_pid_namespace(command)


if __name__ == "__main__":
    main(sys.argv[1:])
