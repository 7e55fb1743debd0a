"""Replay blocks the network: while a case's adapter runs, no socket may resolve or connect anywhere.

The guard patches ``socket.getaddrinfo`` and ``socket.socket.connect`` / ``connect_ex`` only while it is
armed (around each case's adapter call), so that a pytest session that merely has wireconf installed is
never affected. An attempt raises ``NetworkBlocked`` (a ``ConnectionError``, which HTTP libraries
report as a failed connection) and is remembered with its host, so that the case fails naming it
even when the runtime swallows the error. Unix sockets are not network and stay allowed.

The harness's own recording transport is the one exception: it forwards inside ``GUARD.allowed()``,
which lets the current thread through, so that in record mode only what goes through the SDK client
the harness handed over reaches a provider (and is scrubbed before it is written).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from harness.errors import WireconfError


@dataclass(frozen=True)
class NetworkAttempt:
    action: str  # "resolve" or "connect"
    host: str
    port: Any
    thread: str

    def __str__(self) -> str:
        return f"{self.action} {self.host}:{self.port} (thread {self.thread})"


class NetworkBlocked(WireconfError, ConnectionError):
    """A network attempt while replaying."""


def _describe(address: Any) -> tuple[str, Any]:
    if isinstance(address, tuple) and len(address) >= 2:
        return str(address[0]), address[1]
    return str(address), ""


class NetworkGuard:
    """Arms and disarms the socket patches; collects the attempts made while armed."""

    def __init__(self) -> None:
        self.attempts: list[NetworkAttempt] = []
        self._depth = 0
        self._lock = threading.Lock()
        self._local = threading.local()
        self._saved: tuple[Any, Any, Any] | None = None

    def _let_through(self) -> bool:
        return bool(getattr(self._local, "allowed", 0))

    def _block(self, action: str, host: str, port: Any) -> NetworkBlocked:
        attempt = NetworkAttempt(action, host, port, threading.current_thread().name)
        with self._lock:
            self.attempts.append(attempt)
        return NetworkBlocked(
            f"wireconf replay blocks the network: {action} {host}:{port} was refused "
            "(a runtime must use the SDK client the harness hands it; record with --record-mode)"
        )

    def _install(self) -> None:
        guard = self
        real_getaddrinfo, real_connect, real_connect_ex = (
            socket.getaddrinfo,
            socket.socket.connect,
            socket.socket.connect_ex,
        )
        self._saved = (real_getaddrinfo, real_connect, real_connect_ex)

        def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            if guard._let_through():
                return real_getaddrinfo(host, port, *args, **kwargs)
            raise guard._block("resolve", str(host), port)

        def connect(sock: socket.socket, address: Any) -> Any:
            if sock.family == getattr(socket, "AF_UNIX", None) or guard._let_through():
                return real_connect(sock, address)
            raise guard._block("connect", *_describe(address))

        def connect_ex(sock: socket.socket, address: Any) -> Any:
            if sock.family == getattr(socket, "AF_UNIX", None) or guard._let_through():
                return real_connect_ex(sock, address)
            raise guard._block("connect", *_describe(address))

        socket.getaddrinfo = getaddrinfo  # type: ignore[assignment]
        socket.socket.connect = connect  # type: ignore[method-assign]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]

    def _uninstall(self) -> None:
        assert self._saved is not None
        socket.getaddrinfo, socket.socket.connect, socket.socket.connect_ex = self._saved  # type: ignore[method-assign]
        self._saved = None

    @contextmanager
    def armed(self) -> Iterator[list[NetworkAttempt]]:
        """Block the network inside the block; yields the list the attempts made inside are added to."""
        with self._lock:
            start = len(self.attempts)
            self._depth += 1
            if self._depth == 1:
                self._install()
        seen: list[NetworkAttempt] = []
        try:
            yield seen
        finally:
            with self._lock:
                seen.extend(self.attempts[start:])
                self._depth -= 1
                if self._depth == 0:
                    self._uninstall()
                    self.attempts.clear()

    @contextmanager
    def allowed(self) -> Iterator[None]:
        """Let the current thread through (the harness's recording transport only)."""
        self._local.allowed = getattr(self._local, "allowed", 0) + 1
        try:
            yield
        finally:
            self._local.allowed -= 1


GUARD = NetworkGuard()
"""The process's guard: socket patches are process-wide, so there is one."""
