"""Starting an ``exec:`` runtime's process, and starting it early.

A runtime's process takes a while to say hello (the Python helper about 0.4 s: Python, wireconf's
kinds, the adapter), and the harness cannot collect a case before it has the capabilities the hello
names. The plugin's ``pytest_configure`` therefore starts the process (``start_early``) before it
imports the harness (the registries, the session, the runner: about as long again), and the
``ExecAdapter`` the session then builds takes that process over (``take``) and reads its hello, which
has come meanwhile. A process nobody takes (the session failed to load, another ``--impl`` won) is
killed when the interpreter exits.

Every runtime is started through the launcher (``wireconf.cassettes.netns``, run as a script), which
ends with the pytest process (``PR_SET_PDEATHSIG``, and a check of ``--parent`` for a parent that
died before it could ask), and, where the machine allows, puts the runtime in network, PID and mount
namespaces of its own, the run's corpora read-only (``netns.protected()``, hashed before the runtime
starts: ``wireconf.pytest_plugin.corpus_snapshot``). ``kill -9`` of pytest then ends the launcher, its
namespace's init and so every process in it. The kernel sends the parent-death signal when the
*thread* that forked the launcher ends, not the process: so the fork is always made on one thread of
this module's that lives as long as the process (``_Spawner``), whichever thread asks for it (a restart
may be asked for from a case's worker thread).

Every runtime is started with the environment its caller gives, never this process's own: the
harness gives ``wireconf.providers.runtime_environ`` of it (no provider key, the placeholder), so that
a runtime holds no credential in record mode either (the bridge's transport adds it where the request
leaves). A process started early is taken only by an adapter that would start it with the same
command line, folder and environment.

The runtime's environment also names what the run selected (``selection``, set by the plugin from
``--kind`` and ``--api``): ``WIRECONF_KINDS`` and ``WIRECONF_APIS``, comma-separated, absent when the
run selects every kind (api). A runtime may load only what those need before it says ``warm`` (the
Python helper imports no SDK for a run of wire cases only); it still answers any call.

This module imports the standard library and ``netns`` only (also the standard library only): the
plugin imports it where a run has not loaded wireconf's harness yet.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import select
import shlex
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from typing import TypeVar, cast

from wireconf.cassettes import netns
from wireconf.exec_protocol import SELECTION_VARIABLES

T = TypeVar("T")
_Reply = queue.SimpleQueue[tuple[object, BaseException | None]]

_Started = tuple[tuple[str, ...], str | None, tuple[tuple[str, str], ...]]

_EARLY: dict[_Started, subprocess.Popen[str]] = {}
"""Processes started early, by the command line they were started with, their folder and environment."""


_SELECTION: dict[str, str] = {}


def set_selection(kinds: list[str], apis: list[str]) -> None:
    """Record the run's ``--kind`` and ``--api`` (empty: every one) for the runtimes it starts."""
    _SELECTION.clear()
    for variable, chosen in zip(SELECTION_VARIABLES, (kinds, apis), strict=True):
        if chosen:
            _SELECTION[variable] = ",".join(sorted(set(chosen)))


def selection(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` (a runtime's environment) naming the run's selection: ``SELECTION_VARIABLES`` as
    ``set_selection`` recorded them, and none that it did not (not the user's own either)."""
    kept = {k: v for k, v in environ.items() if k not in SELECTION_VARIABLES}
    return {**kept, **_SELECTION}


def _started(argv: list[str], cwd: str | None, env: Mapping[str, str]) -> _Started:
    return tuple(argv), cwd, tuple(sorted(env.items()))


def command_argv(command: str) -> tuple[list[str], str]:
    """The argv that starts ``command`` through the launcher (ending with this process; in
    namespaces of its own, the corpora read-only, where the machine allows them), and what the
    runtime's sandbox is."""
    argv = shlex.split(command)
    if not sys.platform.startswith("linux"):
        return argv, f"runtime processes keep the network and may outlive pytest ({sys.platform})"
    isolated, how = netns.available()
    if isolated:
        return netns.launcher_command(argv, os.getpid(), netns.protected()), f"runtime processes in {how}"
    return (
        netns.launcher_command(argv, os.getpid(), isolate=False),
        f"runtime processes keep the network (the corpus is only hashed; what a runtime starts in a "
        f"session of its own may outlive pytest): {how}",
    )


class _Spawner:
    """One daemon thread that makes every runtime process, for the life of the process: a launcher's
    parent-death signal follows the thread that forked it (``PR_SET_PDEATHSIG``), so a process forked
    from a thread that ends (a case's worker, a background restart) would be killed with it."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], object], _Reply]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self.thread: threading.Thread | None = None

    def _serve(self) -> None:
        while True:
            job, reply = self._jobs.get()
            try:
                reply.put((job(), None))
            except BaseException as exc:  # the caller's to raise
                reply.put((None, exc))

    def run(self, job: Callable[[], T]) -> T:
        """``job()``, run on the spawner thread (started on first use, and again in a forked child,
        which has none); its exception re-raised here."""
        with self._lock:
            if self.thread is None or not self.thread.is_alive():
                self._jobs = queue.SimpleQueue()
                self.thread = threading.Thread(target=self._serve, name="wireconf-exec-spawner", daemon=True)
                self.thread.start()
        reply: _Reply = queue.SimpleQueue()
        self._jobs.put((job, reply))
        value, error = reply.get()
        if error is not None:
            raise error
        return cast("T", value)  # what job() returned


_SPAWNER = _Spawner()


def popen(argv: list[str], cwd: str | None, env: Mapping[str, str]) -> subprocess.Popen[str]:
    """The runtime's process, with the environment ``env`` only: text lines on its stdin, stdout and
    stderr; forked on the spawner thread (``_Spawner``), from whichever thread this is called. A
    runtime in a namespace of its own gets the provider emulator's listener made there and handed
    over (``HandOver``). Raises ``OSError``."""
    environment = dict(env)
    ours, theirs = socket.socketpair() if netns.isolating(argv) else (None, None)
    if theirs is not None:
        argv = netns.with_hand_over(argv, netns.emulator_port(), theirs.fileno())

    def spawn() -> subprocess.Popen[str]:
        assert threading.current_thread() is _SPAWNER.thread, "a runtime forked off the spawner thread"
        return subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=environment,
            text=True,
            encoding="utf-8",
            bufsize=1,
            pass_fds=(theirs.fileno(),) if theirs is not None else (),
        )

    try:
        started = _SPAWNER.run(spawn)
    finally:
        if theirs is not None:
            theirs.close()
    _HAND_OVERS[started.pid] = HandOver(ours, started.pid)
    return started


class HandOver:
    """The provider emulator's listener in one runtime's namespace, received on a thread of its own
    (the launcher sends it before the runtime starts) and given to whoever serves the emulator
    (``serve_listeners``). Without a namespace there is nothing to hand over: the runtime shares the
    host's loopback, where the emulator listens."""

    def __init__(self, channel: socket.socket | None, pid: int | None = None) -> None:
        self.listener: socket.socket | None = None
        self.diag: socket.socket | None = None
        self.pid = pid
        self.why = "" if channel is None else "the launcher has not handed it over yet"
        self.done = threading.Event()
        if channel is None:
            self.done.set()
        else:
            threading.Thread(
                target=self._receive, args=(channel,), daemon=True, name="wireconf-hand-over"
            ).start()

    def _receive(self, channel: socket.socket) -> None:
        with channel:
            try:
                _, fds, _, _ = socket.recv_fds(channel, 64, 2)
            except OSError as exc:
                fds, self.why = [], f"its launcher's channel failed: {exc}"
        if fds:
            self.listener, self.why = socket.socket(fileno=fds[0]), ""
            # with it, the namespace's socket diagnostics (``netns.hand_over_listener``)
            self.diag = socket.socket(fileno=fds[1]) if len(fds) > 1 else None
            _deliver(self.listener, self.diag)
        elif not self.why.startswith("its launcher"):
            self.why = "its launcher made none (its namespace's loopback could not come up: see its stderr)"
        self.done.set()
        if self.listener is not None and self.pid is not None:
            _exited(self.pid)  # the runtime is gone (a restart starts another): nothing can reach it now
            _retire(self.listener, self.diag)
            _HAND_OVERS.pop(self.pid, None)

    def reaches_emulator(self, timeout: float) -> str:
        """Why the runtime cannot reach the provider emulator (``""``: it can), waiting up to
        ``timeout`` seconds for the hand-over."""
        self.done.wait(timeout)
        return self.why


_HAND_OVERS: dict[int, HandOver] = {}
"""Each runtime process's hand-over, by its pid (while it lives)."""
Serve = Callable[[socket.socket, "socket.socket | None"], Callable[[], None]]
"""How a listener is served (with its namespace's socket diagnostics, if it came with one); returns how
to stop."""
_SERVE: list[Serve] = []
_WAITING: list[tuple[socket.socket, socket.socket | None]] = []
_SERVED: dict[socket.socket, Callable[[], None]] = {}
"""How to stop serving each listener given to ``serve``."""
_HANDED = threading.Lock()


def _deliver(listener: socket.socket, diag: socket.socket | None) -> None:
    with _HANDED:
        if not _SERVE:
            _WAITING.append((listener, diag))
            return
        serve = _SERVE[0]
    stop = serve(listener, diag)
    with _HANDED:
        _SERVED[listener] = stop


def _retire(listener: socket.socket, diag: socket.socket | None) -> None:
    """Stop serving ``listener`` (its runtime's namespace is dead), or drop it if it waits still."""
    with _HANDED:
        stop = _SERVED.pop(listener, None)
        if (listener, diag) in _WAITING:
            _WAITING.remove((listener, diag))
    if stop is not None:
        stop()
    listener.close()
    if diag is not None:
        diag.close()


def _exited(pid: int) -> None:
    """Wait until process ``pid`` (a child of this process) has exited, without reaping it (its
    ``Popen`` does): a pidfd turns readable then. Where there is none (an old kernel), forever."""
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    except OSError:
        threading.Event().wait()
        return
    try:
        select.select([pidfd], [], [])
    finally:
        os.close(pidfd)


def serve_listeners(serve: Serve) -> None:
    """Give every listener handed over (those come already, and those to come: a restarted runtime's)
    to ``serve`` (the emulator's ``serve_listener``, which returns how to stop serving it: done once
    its runtime has exited), once; a second call changes nothing."""
    with _HANDED:
        if _SERVE:
            return
        _SERVE.append(serve)
        waiting = list(_WAITING)
        _WAITING.clear()
    for listener, diag in waiting:
        stop = serve(listener, diag)
        with _HANDED:
            _SERVED[listener] = stop


def hand_over(process: subprocess.Popen[str]) -> HandOver:
    """``process``'s hand-over (one with nothing to hand over for a process not started here)."""
    return _HAND_OVERS.get(process.pid) or HandOver(None)


def start_early(command: str, env: Mapping[str, str], cwd: str | None = None) -> None:
    """Start ``command``'s process now with the environment ``env``, for the ``ExecAdapter`` built later
    to take. Best effort: a command that cannot start is left to the adapter, which says why."""
    if not command.strip():
        return
    try:
        started, _ = command_argv(command)
    except ValueError:  # not a command line (an unclosed quote): the adapter says so
        return
    key = _started(started, cwd, env)
    if key in _EARLY:
        return
    try:
        _EARLY[key] = popen(started, cwd, env)
    except OSError:
        return
    atexit.unregister(_stop_untaken)  # once, however many sessions start a runtime early
    atexit.register(_stop_untaken)


def take(argv: list[str], cwd: str | None, env: Mapping[str, str]) -> subprocess.Popen[str] | None:
    """The process started early for ``argv`` in ``cwd`` with the environment ``env``, if there is one
    still running (one started with another environment is left to ``_stop_untaken``)."""
    process = _EARLY.pop(_started(argv, cwd, env), None)
    if process is not None and process.poll() is not None:
        for pipe in (process.stdin, process.stdout, process.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        return None  # it ended before its adapter came (the adapter starts another and reads why)
    return process


def _stop_untaken() -> None:
    for process in _EARLY.values():
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait(timeout=5)
    _EARLY.clear()
