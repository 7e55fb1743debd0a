"""Killing a runner process with what it started, and reaping it off the session's path."""

from __future__ import annotations

import contextlib
import os
import signal
import threading

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


def exit_status(code: int) -> str:
    """A ``waitpid`` status, said."""
    code = os.waitstatus_to_exitcode(code)
    return f"exit status {code}" if code >= 0 else f"killed by signal {-code}"
