"""A process with no network: a Linux network namespace of its own, where nothing but a down loopback
exists, so that no way out of the process (a subprocess such as curl, the raw ``_socket`` module, UDP,
C code) reaches anything.

The harness puts every place a runtime's code runs in one: the forked case runner
(``wireconf.pytest_plugin.runner``) unshares its namespace right after it starts, and ``exec:`` runtime
processes are started through this file run as a script (``python -I -S netns.py -- argv...``), which
unshares and then executes the runtime. Root (``CAP_SYS_ADMIN``) unshares the network alone; other
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
import signal
import struct
import sys

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000


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


def unshare_network(pids: bool = False, loopback: bool = False) -> tuple[bool, str]:
    """Move this process (called while it has one thread) into a new network namespace with no way
    back: then drop the capabilities that would let it re-enter another (``drop_capabilities``). With
    ``pids``, its next child is also the first process of a new PID namespace (whose every process
    the kernel kills when that first one ends). With ``loopback``, the namespace's loopback is brought
    up first (``loopback_up``: it needs the capability dropped next), for the provider emulator.

    Returns whether it did and how (or why not)."""
    if not sys.platform.startswith("linux"):
        return False, f"network namespaces are Linux's ({sys.platform} has none)"
    flags = CLONE_NEWNET | (CLONE_NEWPID if pids else 0)
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


def isolated_command(argv: list[str]) -> list[str]:
    """``argv`` started through this file, in a network namespace of its own."""
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), "--", *argv]


def _probe() -> tuple[bool, str]:
    """Whether a child process can unshare its network here (it tries, then exits)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: try, report, leave (never return into the caller's code)
        try:
            os.close(read)
            try:
                isolated, how = unshare_network()
            except OSError as exc:
                isolated, how = False, str(exc.strerror)
            os.write(write, f"{int(isolated)}{how}".encode())
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as reply:
        answer = reply.read().decode()
    os.waitpid(pid, 0)
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


def _init(argv: list[str], report: int) -> None:
    """The first process of the PID namespace: starts COMMAND, reaps, and writes COMMAND's wait status
    to ``report`` when it ends (then this ends, and the kernel kills whatever is left in the
    namespace). It dies with the launcher (``PR_SET_PDEATHSIG``). The kernel ignores a signal an init
    has no handler for when it comes from inside its namespace, so COMMAND is not the init itself:
    a runtime that kills itself must still end."""
    _prctl(_libc(), _PR_SET_PDEATHSIG, signal.SIGKILL)
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
    init = os.fork()
    if init == 0:
        os.close(read)
        _init(argv, write)
    os.close(write)
    _forward_signals(init)
    _wait_for(init)
    answer = os.read(read, 4)
    status = struct.unpack("=i", answer)[0] if len(answer) == 4 else 1 << 8
    if os.WIFSIGNALED(status):
        if os.WTERMSIG(status) not in (signal.SIGKILL, signal.SIGSTOP):  # the two that have no handler
            signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status))


def main(argv: list[str]) -> None:
    """``python -I -S netns.py -- COMMAND...``: unshare the network (and the PIDs), drop the
    capabilities that could undo it, then run COMMAND."""
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        sys.exit("usage: netns.py -- COMMAND [ARGS...]")
    try:
        isolated, how = unshare_network(pids=True)
    except OSError as exc:
        sys.exit(f"wireconf: {exc.strerror}; the runtime is not started")
    if not isolated:
        sys.stderr.write(f"wireconf: the runtime keeps the network: {how}\n")
        os.execvp(argv[0], argv)
    _run_in_pid_namespace(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
