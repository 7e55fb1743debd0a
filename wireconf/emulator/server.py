"""The provider emulator's server: its sites, its listeners, what reached it for no site.

``Emulator`` binds 127.0.0.1 (an ephemeral port by default) and serves on a thread of its own, each
connection on one more (``handler``); ``serve_listener`` serves a socket made listening at the same
address in another network namespace. Sites are opened per case (``open_site``) and closed when the
case ends; what answers them is the case's responder (``answers``). The emulator opens no connection
of its own.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from types import TracebackType
from urllib.parse import urlsplit

from wireconf.cassettes.downloads import Downloads
from wireconf.core.untyped import JSON
from wireconf.emulator import settle
from wireconf.emulator.answers import Refused, Responder
from wireconf.emulator.handler import HostServer, token_of_credentials
from wireconf.emulator.routes import EmulatorError, public_endpoint
from wireconf.emulator.seat import Seat
from wireconf.emulator.site import Site
from wireconf.emulator.tls import Authority

SWITCH_INTERVAL = 0.0005
"""The interpreter's thread switch interval while an emulator serves a runtime in another process
(seconds, ``Emulator.hurry``): how long a request that came in waits at most for the thread that
computes to let its own thread run."""


class Emulator:
    """The server, its sites and what reached it for no site. One per process is enough: sites are
    cheap, and a case's site is closed when the case ends."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, listener: socket.socket | None = None) -> None:
        """``listener``: a socket already listening (at ``host``:``port`` or elsewhere), adopted instead of
        binding one: the one reserved before the ``exec:`` runtimes started (``netns.emulator_socket``),
        whose port their namespaces listen at."""
        self._server = HostServer(self, (host, port), listener)
        bound_host, bound_port = self._server.server_address[:2]
        self.address = (str(bound_host), int(bound_port))
        self.url = f"http://{self.address[0]}:{self.address[1]}"
        self._sites: dict[str, Site] = {}
        self._seats: dict[str, Seat] = {}
        self._lock = threading.Lock()
        self._authority: Authority | None = None
        self._thread: threading.Thread | None = None
        self._switch = sys.getswitchinterval()
        self._hurried = False
        self._listeners: list[tuple[HostServer, threading.Thread]] = []
        self.strays: list[Refused] = []
        """Requests no open site can be told for (an unknown or closed token, no proxy credentials)."""
        self.failures: list[str] = []
        """What went wrong in the emulator itself outside any site's reply (a wireconf bug): the harness
        makes the cases it ran during errors."""
        self.charged: tuple[int, int] = (0, 0)
        """How many strays and failures the cases closed so far were charged with (``CaseSites``)."""

    # -- life ----------------------------------------------------------------------------------------

    def start(self) -> Emulator:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.5},
                daemon=True,
                name=settle.OWN_THREADS,
            )
            self._thread.start()
        return self

    def hurry(self) -> None:
        """A runtime in another process waits on this emulator's answers: a request is answered on a
        thread of this process while its main thread computes (the harness judging, reporting), and
        takes the GIL only after the switch interval, 5 ms by default, paid per request by that
        runtime; lowered to ``SWITCH_INTERVAL`` until the emulator closes. Not for a runtime in this
        process: its thread waits on the answer without the GIL, and a shorter interval only makes
        its other threads (LiteLLM's logging pool) hand the GIL back and forth, on the CPU of every
        case (``benchmarks/emulator_overhead.py``)."""
        with self._lock:
            if self._hurried or self._thread is None:
                return
            self._hurried = True
            self._switch = sys.getswitchinterval()
            sys.setswitchinterval(min(self._switch, SWITCH_INTERVAL))

    def serve_listener(
        self, listener: socket.socket, diag: socket.socket | None = None
    ) -> Callable[[], None]:
        """Serve the connections of ``listener`` too: a socket listening on 127.0.0.1 at this emulator's
        port in another network namespace (a forked runner's, an ``exec:`` runtime's), made there and
        handed over (``socket.send_fds``), so that every site's URL means the same there as here and
        the emulator is all that namespace can reach. The sites are the same. ``diag``: a socket
        diagnostics socket made in that namespace (``settle.Diag``), for the stream gate to see its
        connections; without one the gate keeps its clock there. Returns how to stop serving it (its
        namespace is dead: a thread and a socket less)."""
        host, port = listener.getsockname()[:2]
        if (host, port) != self.address:
            raise EmulatorError(
                f"a listener on {host}:{port} cannot serve this emulator's sites, whose URLs name "
                f"{self.address[0]}:{self.address[1]}"
            )
        self.hurry()  # the namespace's runtime is another process
        server = HostServer(self, self.address, listener, settle.Diag(diag) if diag is not None else None)
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True, name=settle.OWN_THREADS
        )
        thread.start()
        served = (server, thread)
        with self._lock:
            self._listeners.append(served)

        def stop() -> None:
            with self._lock:
                if served not in self._listeners:
                    return  # the emulator was closed (every listener with it)
                self._listeners.remove(served)
            _stop(server, thread)

        return stop

    def close(self) -> None:
        """Stop serving; every connection still open is shut down (their threads end with them)."""
        with self._lock:
            servers = [(self._server, self._thread), *self._listeners]
            self._listeners = []
        if self._hurried:
            self._hurried = False
            sys.setswitchinterval(self._switch)
        self._thread = None
        for server, thread in servers:
            _stop(server, thread)
        with self._lock:
            for site in self._sites.values():
                site.closed.set()
            self._sites.clear()
            self._seats.clear()
            authority, self._authority = self._authority, None
        if authority is not None:
            authority.close()

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def authority(self) -> Authority:
        """The download proxy's certificate authority, made on first use."""
        with self._lock:
            if self._authority is None:
                self._authority = Authority()
            return self._authority

    # -- sites ---------------------------------------------------------------------------------------

    def open_site(
        self,
        api: str,
        responder: Responder,
        messages: JSON = None,
        recorded_uri: str | None = None,
    ) -> Site:
        """A new site for one case of ``api``: answered by ``responder``, its downloads the media URLs
        ``messages`` (the case's input) names, its api at the prefix its SDK uses (with the API version
        of ``recorded_uri`` where the provider's client reads it from the recording)."""
        if self._thread is None:
            raise EmulatorError("the emulator is not serving: start it before opening a site")
        public = public_endpoint(api, recorded_uri)
        downloads = Downloads(messages)
        # the authority (a few hundred ms to import and make, on a loaded machine) only for a case that
        # names media over https: no other case is ever let through a tunnel
        tunnels = any(urlsplit(url).scheme.lower() == "https" for url in downloads.named)
        ca_file = str(self.authority().ca_file) if tunnels else None
        site = Site(api, responder, downloads, public, self.url, ca_file)
        with self._lock:
            self._sites[site.token] = site
        return site

    def close_site(self, site: Site) -> None:
        """The site answers nothing from now on (a request in flight finishes)."""
        with self._lock:
            self._sites.pop(site.token, None)
        site.closed.set()

    @contextlib.contextmanager
    def serving(self, api: str, responder: Responder, messages: JSON = None) -> Iterator[Site]:
        """A site open for the block."""
        site = self.open_site(api, responder, messages)
        try:
            yield site
        finally:
            self.close_site(site)

    def open_seat(self) -> Seat:
        """A seat for one runtime process (``seat``): its URL answers for the site it is given."""
        if self._thread is None:
            raise EmulatorError("the emulator is not serving: start it before opening a seat")
        seat = Seat(self.url)
        with self._lock:
            self._seats[seat.token] = seat
        return seat

    def close_seat(self, seat: Seat) -> None:
        """The seat answers nothing from now on."""
        with self._lock:
            self._seats.pop(seat.token, None)

    def site(self, token: str) -> Site | None:
        """The open site of ``token``, or the current site of the seat of ``token``."""
        with self._lock:
            site = self._sites.get(token)
            seat = self._seats.get(token) if site is None else None
        return seat.current if seat is not None else site

    def no_site(self, token: str) -> str:
        """Why ``token`` names no site (what a stray to it is kept with)."""
        with self._lock:
            seated = token in self._seats
        return (
            "a request to a runtime's seat while none of its calls is current"
            if seated
            else ("no open site has this token")
        )

    def site_of_credentials(self, header: str | None) -> Site | None:
        token = token_of_credentials(header)
        return None if token is None else self.site(token)

    def failed(self, what: str) -> None:
        with self._lock:
            self.failures.append(what)

    def stray(self, method: str, url: str, why: str) -> None:
        with self._lock:
            self.strays.append(Refused(method, url, why, threading.current_thread().name))


def _stop(server: HostServer, thread: threading.Thread | None) -> None:
    """Stop ``server``'s loop, close its socket and shut down its connections (their threads end)."""
    if thread is not None:
        server.shutdown()
        thread.join()
    server.server_close()
    with server.connections_lock:
        for connection in list(server.connections):
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
