"""A process with no network: a Linux network namespace of its own, where nothing but a down loopback
exists, so that no way out of the process (a subprocess such as curl, the raw ``_socket`` module, UDP,
C code) reaches anything.

The harness puts every place a runtime's code runs in one: the forked case runner
(``harness.pytest_plugin.runner``) unshares its namespace right after it starts, and ``exec:`` runtime
processes are started through this file run as a script (``python -I -S netns.py -- argv...``), which
unshares and then executes the runtime. Root (``CAP_SYS_ADMIN``) unshares the network alone; other
users unshare a user namespace with it, mapping their own ids to themselves, where the kernel allows
unprivileged user namespaces.

Record mode needs one way out: the harness's own recording transport. A thread can enter the host's
namespace (``setns``) for as long as it forwards a request and come back, which needs the same
privilege as unsharing the network alone; where only the user-namespace way works, record mode keeps
the host's network and relies on the in-process guard (``harness.cassettes.network_guard``).

This module imports nothing but the standard library, so that it runs as a script with ``-I -S``.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import sys
from collections.abc import Iterator

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
_NS_PATH = "/proc/thread-self/ns/net"


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def _unshare(flags: int) -> None:
    if hasattr(os, "unshare"):  # Python 3.12+
        os.unshare(flags)
        return
    if _libc().unshare(flags) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def _setns(fd: int) -> None:
    if hasattr(os, "setns"):  # Python 3.12+
        os.setns(fd, CLONE_NEWNET)
        return
    if _libc().setns(fd, CLONE_NEWNET) != 0:
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


def unshare_network(way_back: bool = False) -> tuple[bool, str]:
    """Move this process (called while it has one thread) into a new network namespace.

    Returns whether it did and how (or why not). With ``way_back`` only the privileged way is tried,
    the one from which a thread can enter the host's namespace again (``HostPassage``).
    """
    if not sys.platform.startswith("linux"):
        return False, f"network namespaces are Linux's ({sys.platform} has none)"
    try:
        _unshare(CLONE_NEWNET)
        return True, "a network namespace of its own"
    except OSError as exc:
        privileged_error = exc
    if way_back:
        return False, f"unshare(CLONE_NEWNET) was refused ({privileged_error.strerror})"
    try:
        _unshare(CLONE_NEWUSER | CLONE_NEWNET)
        _map_ids_to_themselves()
        return True, "a network namespace of its own (in a user namespace)"
    except OSError as exc:
        return False, (
            f"unshare(CLONE_NEWNET) was refused ({privileged_error.strerror}) and so was an unprivileged "
            f"user namespace ({exc.strerror})"
        )


class HostPassage:
    """Lets one thread at a time use the host's network: the recording transport's way out."""

    def __init__(self, host_fd: int, own_fd: int) -> None:
        self.host_fd = host_fd
        self.own_fd = own_fd

    @classmethod
    def isolate(cls) -> tuple[HostPassage | None, str]:
        """Unshare the network, keeping a way back for the recording transport; ``None`` and why not
        when the namespace cannot be had with a way back (the process is then left as it was)."""
        if not sys.platform.startswith("linux"):
            return None, f"network namespaces are Linux's ({sys.platform} has none)"
        try:
            host_fd = os.open(_NS_PATH, os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            return None, f"cannot open {_NS_PATH} ({exc.strerror})"
        isolated, how = unshare_network(way_back=True)
        if not isolated:
            os.close(host_fd)
            return None, how
        own_fd = os.open(_NS_PATH, os.O_RDONLY | os.O_CLOEXEC)
        passage = cls(host_fd, own_fd)
        try:
            with passage.open():
                pass
        except OSError as exc:  # cannot come back: nothing is lost yet, the process is isolated
            return None, f"a thread cannot re-enter the host's network ({exc.strerror})"
        return passage, how + ", the recording transport alone passing to the host's"

    @contextlib.contextmanager
    def open(self) -> Iterator[None]:
        """The current thread uses the host's network inside the block (its sockets stay there)."""
        _setns(self.host_fd)
        try:
            yield
        finally:
            _setns(self.own_fd)


def isolated_command(argv: list[str]) -> list[str]:
    """``argv`` started through this file, in a network namespace of its own."""
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), "--", *argv]


def _probe() -> tuple[bool, str]:
    """Whether a child process can unshare its network here (it tries, then exits)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: try, report, leave
        os.close(read)
        isolated, how = unshare_network()
        os.write(write, f"{int(isolated)}{how}".encode())
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


def main(argv: list[str]) -> None:
    """``python -I -S netns.py -- COMMAND...``: unshare the network, then become COMMAND."""
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        sys.exit("usage: netns.py -- COMMAND [ARGS...]")
    isolated, how = unshare_network()
    if not isolated:
        sys.stderr.write(f"wireconf: the runtime keeps the network: {how}\n")
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main(sys.argv[1:])
