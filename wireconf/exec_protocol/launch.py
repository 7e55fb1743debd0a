"""Starting an ``exec:`` runtime's process, and starting it early.

A runtime's process takes a while to say hello (the Python helper about 0.4 s: Python, wireconf's
kinds, the adapter), and the harness cannot collect a case before it has the capabilities the hello
names. The plugin's ``pytest_configure`` therefore starts the process (``start_early``) before it
imports the harness (the registries, the session, the runner: about as long again), and the
``ExecAdapter`` the session then builds takes that process over (``take``) and reads its hello, which
has come meanwhile. A process nobody takes (the session failed to load, another ``--impl`` won) is
killed when the interpreter exits.

This module imports the standard library and ``netns`` only (also the standard library only): the
plugin imports it where a run has not loaded wireconf's harness yet.
"""

from __future__ import annotations

import atexit
import contextlib
import shlex
import subprocess

from wireconf.cassettes import netns

_EARLY: dict[tuple[tuple[str, ...], str | None], subprocess.Popen[str]] = {}
"""Processes started early, by the command line they were started with and their folder."""


def command_argv(command: str) -> tuple[list[str], str]:
    """The argv that starts ``command`` (in a network namespace of its own where the machine allows
    one), and what the runtime's network is."""
    argv = shlex.split(command)
    isolated, how = netns.available()
    if isolated:
        return netns.isolated_command(argv), f"runtime processes in {how}"
    return argv, f"runtime processes keep the network: {how}"


def popen(argv: list[str], cwd: str | None) -> subprocess.Popen[str]:
    """The runtime's process: text lines on its stdin, stdout and stderr. Raises ``OSError``."""
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        text=True,
        encoding="utf-8",
        bufsize=1,
    )


def start_early(command: str, cwd: str | None = None) -> None:
    """Start ``command``'s process now, for the ``ExecAdapter`` built later to take. Best effort: a
    command that cannot start is left to the adapter, which says why."""
    if not command.strip():
        return
    try:
        started, _ = command_argv(command)
    except ValueError:  # not a command line (an unclosed quote): the adapter says so
        return
    key = (tuple(started), cwd)
    if key in _EARLY:
        return
    try:
        _EARLY[key] = popen(started, cwd)
    except OSError:
        return
    atexit.unregister(_stop_untaken)  # once, however many sessions start a runtime early
    atexit.register(_stop_untaken)


def take(argv: list[str], cwd: str | None) -> subprocess.Popen[str] | None:
    """The process started early for ``argv`` in ``cwd``, if there is one still running."""
    process = _EARLY.pop((tuple(argv), cwd), None)
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
