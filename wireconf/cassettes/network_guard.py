"""Replay blocks the network: where a runtime's code runs, no socket may resolve, connect or send
anywhere, and every attempt is remembered with its host so that the case fails naming it.

Two layers. The hard one is a network namespace (``wireconf.cassettes.netns``): the forked case runner
and every ``exec:`` runtime process have no network at all, whatever they use (a subprocess such as
curl, the raw ``_socket`` module, C code). This guard is the layer that *names* what was tried: it
patches ``socket.getaddrinfo``, ``socket.socket.connect`` / ``connect_ex`` and ``sendto`` / ``sendmsg``
with an address, raising ``NetworkBlocked`` (a ``ConnectionError``, which HTTP libraries report as a
failed connection) and keeping the attempt, so that the case fails even when the runtime swallows the
error. Where no namespace can be had (another OS, no privilege), the guard is all there is, and what
it cannot see (subprocesses, ``_socket``) is a stated limit (docs/recording.md). Unix sockets are not
network and stay allowed.

The guard is installed for a whole run, not per case: in the forked runner for the runner's life,
in the thread runner from the first case to the end of the session, so that work a timed-out case
left running cannot reach the network between cases either. Attempts carry the thread that made them,
so that a case is charged only with its own.

The harness's own recording transport is the one exception: in a namespace it hands its requests to
the pytest process (``GUARD.passage``, ``wireconf.cassettes.passage``); without one it forwards inside
``GUARD.allowed()``, which lets the current thread through; either way only what goes through the SDK
client the harness handed over reaches a provider, and only the provider's origin (and it is scrubbed
before it is written).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wireconf.core.errors import WireconfError

if TYPE_CHECKING:
    from wireconf.cassettes.passage import Passage


@dataclass(frozen=True)
class NetworkAttempt:
    action: str  # "resolve", "connect" or "send"
    host: str
    port: Any
    thread: str
    ident: int = 0

    def __str__(self) -> str:
        return f"{self.action} {self.host}:{self.port} (thread {self.thread})"


class NetworkBlocked(WireconfError, ConnectionError):
    """A network attempt while replaying."""


def _describe(address: Any) -> tuple[str, Any]:
    if isinstance(address, tuple) and len(address) >= 2:
        return str(address[0]), address[1]
    return str(address), ""


def _is_unix(sock: socket.socket) -> bool:
    return sock.family == getattr(socket, "AF_UNIX", None)


class NetworkGuard:
    """Installs and removes the socket patches; collects the attempts made while installed."""

    def __init__(self) -> None:
        self.attempts: list[NetworkAttempt] = []
        self.passage: Passage | None = None
        """Set in the case runner's network namespace in record mode: the recording transport's way
        out, through the pytest process (``wireconf.cassettes.passage``)."""
        self.admitted: frozenset[tuple[str, int]] = frozenset()
        """Addresses every thread may reach: the provider emulator's, in this process's namespace
        (``admit``); nothing else, and no name is resolved but their own literal host and port."""
        self._depth = 0
        self._lock = threading.Lock()
        self._local = threading.local()
        self._saved: tuple[Any, ...] | None = None

    @property
    def installed(self) -> bool:
        return self._depth > 0

    def _let_through(self) -> bool:
        return bool(getattr(self._local, "allowed", 0))

    def admit(self, address: tuple[str, int]) -> None:
        """Let every thread reach ``address`` (the provider emulator's ``127.0.0.1:<port>``): a
        connection there, and the resolution of that literal host with that port."""
        with self._lock:
            self.admitted = self.admitted | {(address[0], int(address[1]))}

    def _admits(self, address: Any) -> bool:
        if not (isinstance(address, tuple) and len(address) >= 2):
            return False
        try:
            return (str(address[0]), int(address[1])) in self.admitted
        except (TypeError, ValueError):
            return False

    def refuse(self, action: str, host: str, port: Any) -> NetworkBlocked:
        """Keep an attempt the harness itself refused (the recording transport's, to a host that is not
        the provider's), charged like any other; the error to raise."""
        return self._block(action, host, port)

    def _block(self, action: str, host: str, port: Any) -> NetworkBlocked:
        thread = threading.current_thread()
        attempt = NetworkAttempt(action, host, port, thread.name, thread.ident or 0)
        with self._lock:
            self.attempts.append(attempt)
        return NetworkBlocked(
            f"wireconf replay blocks the network: {action} {host}:{port} was refused "
            "(a runtime reaches a provider only at the case's endpoint or through the SDK client the "
            "harness hands it; record with --record-mode)"
        )

    def _patch(self) -> None:
        guard = self
        real = (
            socket.getaddrinfo,
            socket.socket.connect,
            socket.socket.connect_ex,
            socket.socket.sendto,
            socket.socket.sendmsg,
        )
        self._saved = real
        real_getaddrinfo, real_connect, real_connect_ex, real_sendto, real_sendmsg = real

        def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
            if guard._let_through() or guard._admits((host, port)):
                return real_getaddrinfo(host, port, *args, **kwargs)
            raise guard._block("resolve", str(host), port)

        def connect(sock: socket.socket, address: Any) -> Any:
            if _is_unix(sock) or guard._let_through() or guard._admits(address):
                return real_connect(sock, address)
            raise guard._block("connect", *_describe(address))

        def connect_ex(sock: socket.socket, address: Any) -> Any:
            if _is_unix(sock) or guard._let_through() or guard._admits(address):
                return real_connect_ex(sock, address)
            raise guard._block("connect", *_describe(address))

        def sendto(sock: socket.socket, data: Any, *args: Any) -> Any:
            if _is_unix(sock) or guard._let_through() or not args:
                return real_sendto(sock, data, *args)
            raise guard._block("send", *_describe(args[-1]))

        def sendmsg(sock: socket.socket, buffers: Any, *args: Any) -> Any:
            if _is_unix(sock) or guard._let_through() or len(args) < 3 or args[2] is None:
                return real_sendmsg(sock, buffers, *args)
            raise guard._block("send", *_describe(args[2]))

        # the guard patches the socket module in place (that is its job); the stubs' overloads of these
        # methods are wider than the wrappers' signatures, which forward whatever they are given
        socket.getaddrinfo = getaddrinfo
        socket.socket.connect = connect  # type: ignore[method-assign, assignment]  # see above
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign, assignment]  # see above
        socket.socket.sendto = sendto  # type: ignore[method-assign, assignment]  # see above
        socket.socket.sendmsg = sendmsg  # type: ignore[method-assign, assignment]  # see above

    def _unpatch(self) -> None:
        assert self._saved is not None
        (  # the saved originals put back (see _patch)
            socket.getaddrinfo,
            socket.socket.connect,  # type: ignore[method-assign]  # put back in place
            socket.socket.connect_ex,  # type: ignore[method-assign]  # put back in place
            socket.socket.sendto,  # type: ignore[method-assign]  # put back in place
            socket.socket.sendmsg,  # type: ignore[method-assign]  # put back in place
        ) = self._saved
        self._saved = None

    def install(self) -> int:
        """Block the network from now on (nested installs count); returns the mark of the attempts so
        far, for ``since``."""
        with self._lock:
            self._depth += 1
            if self._depth == 1:
                self._patch()
            return len(self.attempts)

    def uninstall(self) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                self._unpatch()
                self.attempts.clear()

    def mark(self) -> int:
        """Where the attempts stand now (for ``since``)."""
        with self._lock:
            return len(self.attempts)

    def since(self, mark: int) -> list[NetworkAttempt]:
        with self._lock:
            return self.attempts[mark:]

    @contextmanager
    def armed(self) -> Iterator[list[NetworkAttempt]]:
        """Block the network inside the block; yields the list the attempts made inside are added to."""
        start = self.install()
        seen: list[NetworkAttempt] = []
        try:
            yield seen
        finally:
            seen.extend(self.since(start))
            self.uninstall()

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


def charged(attempts: list[NetworkAttempt], earlier_threads: set[int], runner_thread: int) -> list[str]:
    """The attempts a case is charged with: those of its runner thread and of threads it started;
    threads that existed before it (work left running by earlier cases) are not its doing."""
    return list(
        dict.fromkeys(str(a) for a in attempts if a.ident == runner_thread or a.ident not in earlier_threads)
    )
