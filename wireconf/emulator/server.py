"""The emulator's HTTP server: the standard library's ``ThreadingHTTPServer`` on 127.0.0.1.

Each connection is served on a thread of its own, HTTP/1.1 with keep-alive (an SDK's connection pool
is used as with a provider). A request reaches one of three places:

- ``/<token>/<path>`` (origin form): the site of that token; ``<path>`` is what the SDK appended to
  its base URL. It is captured, then answered as the site's responder says: a recorded response
  written as recorded (its status, its headers but those that describe the bytes on the socket, its
  body; an event stream in its recorded events, one chunk each, counted), or nothing (the connection
  closed: a failed connection to the runtime's HTTP library).
- ``http://host/path`` (absolute form) or ``CONNECT host:443``, with proxy credentials naming a site,
  or ``/<token>/.well-known/wireconf/download?url=URL`` (``DOWNLOAD_PATH``): a media download of that
  site's case, answered with fixture bytes (``wireconf.cassettes.downloads``) for a URL its input
  names, over TLS under the emulator's own authority for ``https`` through the proxy (``tls``).
- anything else (an unknown token, a closed site, a path that is not the site's api, a download its
  case does not name, a host it does not name): refused, kept as a network attempt on the site (or,
  when no site can be told, on the emulator's ``strays``), and the connection closed.

Request bodies are read by their ``Content-Length`` (what every SDK sends); one of unknown length
(``Transfer-Encoding: chunked``) is answered ``411 Length Required``, as HTTP lets a server, and kept
as a refusal. The emulator opens no connection of its own: nothing it is sent reaches a network.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import socket
import ssl
import sys
import threading
from collections.abc import Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from wireconf.cassettes.downloads import Download, Downloads
from wireconf.emulator.answers import Answer, Refused, Reply, Responder
from wireconf.emulator.routes import DOWNLOAD_PATH, EmulatorError, public_endpoint
from wireconf.emulator.site import PROXY_USER, Site
from wireconf.emulator.tls import Authority
from wireconf.untyped import JSON

FRAMING_HEADERS = frozenset(
    {
        "connection",
        "content-encoding",
        "content-length",
        "keep-alive",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
"""Recorded response headers that describe the bytes on the socket (the recorded body is kept
decoded, its length as it is) or the recorded connection: written anew for the bytes the emulator
sends. Every other recorded header is written as recorded, in its order."""


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(
        self, emulator: Emulator, address: tuple[str, int], listener: socket.socket | None = None
    ) -> None:
        self.emulator = emulator
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler, bind_and_activate=listener is None)
        if listener is not None:  # a socket already listening (in another network namespace)
            self.socket.close()
            self.socket = listener
            self.server_address = listener.getsockname()

    def finish_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            self.connections.add(request)
        try:
            super().finish_request(request, client_address)
        finally:
            with self.connections_lock:
                self.connections.discard(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection the client dropped mid-answer (a runtime that stops reading a stream) is its
        business; anything else that escaped a request's handling is the emulator's own failure, kept
        (``Emulator.failures``), never printed over the run's output."""
        failure = sys.exc_info()[1]
        if failure is not None and not isinstance(failure, OSError):
            self.emulator.failed(f"{type(failure).__name__}: {failure}")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # an event stream's events go as they are written
    wbufsize = -1  # the head and a small body leave in one write (the loop flushes after each request)
    server: _Server
    _tunnel: tuple[str, int, Site] | None = None

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: what matters is kept on the sites."""

    # every method comes to the same place (what is not the site's is refused there)
    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    def do_CONNECT(self) -> None:
        emulator = self.server.emulator
        host, _, port_text = self.path.rpartition(":")
        site = emulator.site_of_credentials(self.headers.get("proxy-authorization"))
        target = f"https://{self.path}"
        if site is None:
            emulator.stray("CONNECT", target, "no open site's proxy credentials")
            self.close_connection = True
            return
        if not port_text.isdigit() or not site.tunnels_to(host.strip("[]"), int(port_text)):
            site.refuse("CONNECT", target, "no media URL of the case's input is on this host")
            self.close_connection = True
            return
        self.send_response_only(HTTPStatus.OK, "Connection Established")
        self.end_headers()
        self.wfile.flush()
        try:
            context = emulator.authority().context(host.strip("[]"))
            tls = context.wrap_socket(self.connection, server_side=True)
        except (ssl.SSLError, OSError) as exc:
            site.refuse("CONNECT", target, f"the TLS handshake failed ({exc}): trust the site's ca_file")
            self.close_connection = True
            return
        # the requests inside the tunnel are read from the TLS stream by the same loop (``handle``)
        self.connection = tls
        self.rfile = tls.makefile("rb")
        self.wfile = tls.makefile("wb")
        self._tunnel = (host.strip("[]"), int(port_text), site)
        self.close_connection = False  # a CONNECT of HTTP/1.0 (urllib3's) keeps its tunnel open too

    # -- one request ---------------------------------------------------------------------------------

    def _body(self) -> bytes | None:
        """The request body (empty without one); ``None`` for a body of unknown length (refused)."""
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            return None
        length = self.headers.get("content-length")
        if not length:
            return b""
        try:
            return self.rfile.read(int(length))
        except ValueError:
            return None

    def _handle(self) -> None:
        body = self._body()
        if self._tunnel is not None:
            host, port, site = self._tunnel
            shown = host if port == 443 else f"{host}:{port}"
            self._download(site, f"https://{shown}{self.path}", body)
        elif self.path.startswith(("http://", "https://")):
            self._proxied(body)
        else:
            self._to_origin(body)

    def _proxied(self, body: bytes | None) -> None:
        """A plain-HTTP download through the proxy (the absolute form), for the site its credentials name."""
        emulator = self.server.emulator
        site = emulator.site_of_credentials(self.headers.get("proxy-authorization"))
        if site is None:
            emulator.stray(self.command, self.path, "no open site's proxy credentials")
            self.close_connection = True
            return
        self._download(site, self.path, body)

    def _to_origin(self, body: bytes | None) -> None:
        """A request to a site's origin: captured, then answered as its responder says."""
        emulator = self.server.emulator
        token, _, rest = self.path.lstrip("/").partition("/")
        site = emulator.site(token)
        if site is None:
            emulator.stray(self.command, self.path, "no open site has this token")
            self.close_connection = True
            return
        path, _, query = ("/" + rest).partition("?")
        if path == DOWNLOAD_PATH:
            wanted = [v for k, v in parse_qsl(query, keep_blank_values=True) if k == "url"]
            self._download(site, wanted[0] if len(wanted) == 1 else f"{site.origin}{path}?{query}", body)
            return
        if body is None:
            site.refuse(self.command, site.public.origin + path, "a request body of unknown length")
            self._length_required()
            return
        headers = tuple((str(k), str(v)) for k, v in self.headers.items())
        request = site.capture(self.command, path, query, headers, body)
        try:
            reply: Reply = site.reply(request)
        except Exception as exc:  # the harness's side failed: the case is an error, never a verdict
            reply = Refused(request.method, request.url, f"the emulator failed (a wireconf bug): {exc!r}")
        if isinstance(reply, Answer):
            self._write(site, reply)
            return
        if isinstance(reply, Refused):
            site.refuse(reply.method, reply.url, reply.why)
        self.close_connection = True  # refused or unanswered: no response, as a failed connection

    def _download(self, site: Site, url: str, body: bytes | None) -> None:
        found = site.downloads.answer(self.command, url) if body is not None else None
        if found is None:
            why = "a request body of unknown length" if body is None else "not a media URL the case names"
            site.refuse(self.command, url, why)
            self.close_connection = True
            return
        self._write_download(found)

    # -- writing -------------------------------------------------------------------------------------

    def _write(self, site: Site, reply: Answer) -> None:
        response = reply.response
        self.send_response_only(response.status)
        for name, values in response.headers.items():
            if name.lower() not in FRAMING_HEADERS:
                for value in values:
                    self.send_header(name, value)
        probe = reply.probe
        if probe is None:
            self._finish(response.body)
            return
        site.wrote(probe)
        self.send_header("Transfer-Encoding", "chunked")
        if self.command == "HEAD":
            self.end_headers()
            return
        self.end_headers()
        # one chunk per recorded event (the HTTP framing a reader's chunks follow), all of them in one
        # write: the server's thread and a runtime's in one process hand the GIL over once, not per event
        chunks = b"".join(b"%x\r\n%s\r\n" % (len(event), event) for event in probe.chunks())
        self.wfile.write(chunks + b"0\r\n\r\n")

    def _write_download(self, found: Download) -> None:
        self.send_response_only(found.status)
        for name, value in found.headers:
            if name.lower() not in FRAMING_HEADERS:
                self.send_header(name, value)
        self._finish(found.body)

    def _finish(self, body: bytes) -> None:
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def _length_required(self) -> None:
        self.send_response_only(HTTPStatus.LENGTH_REQUIRED)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()


def _token_of_credentials(header: str | None) -> str | None:
    """The password of ``Basic`` proxy credentials whose user is ``PROXY_USER``."""
    scheme, _, encoded = (header or "").strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, _, password = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return password if user == PROXY_USER else None


class Emulator:
    """The server, its sites and what reached it for no site. One per process is enough: sites are
    cheap, and a case's site is closed when the case ends."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = _Server(self, (host, port))
        bound_host, bound_port = self._server.server_address[:2]
        self.address = (str(bound_host), int(bound_port))
        self.url = f"http://{self.address[0]}:{self.address[1]}"
        self._sites: dict[str, Site] = {}
        self._lock = threading.Lock()
        self._authority: Authority | None = None
        self._thread: threading.Thread | None = None
        self._listeners: list[tuple[_Server, threading.Thread]] = []
        self.strays: list[Refused] = []
        """Requests no open site can be told for (an unknown or closed token, no proxy credentials)."""
        self.failures: list[str] = []
        """What went wrong in the emulator itself outside any site's reply (a wireconf bug): the harness
        makes the cases it ran during errors."""

    # -- life ----------------------------------------------------------------------------------------

    def start(self) -> Emulator:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": 0.5},
                daemon=True,
                name="wireconf-emulator",
            )
            self._thread.start()
        return self

    def serve_listener(self, listener: socket.socket) -> None:
        """Serve the connections of ``listener`` too: a socket listening on 127.0.0.1 at this emulator's
        port in another network namespace (a forked runner's, an ``exec:`` runtime's), made there and
        handed over (``socket.send_fds``), so that every site's URL means the same there as here and
        the emulator is all that namespace can reach. The sites are the same."""
        host, port = listener.getsockname()[:2]
        if (host, port) != self.address:
            raise EmulatorError(
                f"a listener on {host}:{port} cannot serve this emulator's sites, whose URLs name "
                f"{self.address[0]}:{self.address[1]}"
            )
        server = _Server(self, self.address, listener)
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.5}, daemon=True, name="wireconf-emulator"
        )
        thread.start()
        self._listeners.append((server, thread))

    def close(self) -> None:
        """Stop serving; every connection still open is shut down (their threads end with them)."""
        servers = [(self._server, self._thread), *self._listeners]
        self._thread, self._listeners = None, []
        for server, thread in servers:
            if thread is not None:
                server.shutdown()
                thread.join()
            server.server_close()
            with server.connections_lock:
                for connection in list(server.connections):
                    with contextlib.suppress(OSError):
                        connection.shutdown(socket.SHUT_RDWR)
        with self._lock:
            self._sites.clear()
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

    @contextlib.contextmanager
    def serving(self, api: str, responder: Responder, messages: JSON = None) -> Iterator[Site]:
        """A site open for the block."""
        site = self.open_site(api, responder, messages)
        try:
            yield site
        finally:
            self.close_site(site)

    def site(self, token: str) -> Site | None:
        with self._lock:
            return self._sites.get(token)

    def site_of_credentials(self, header: str | None) -> Site | None:
        token = _token_of_credentials(header)
        return None if token is None else self.site(token)

    def failed(self, what: str) -> None:
        with self._lock:
            self.failures.append(what)

    def stray(self, method: str, url: str, why: str) -> None:
        with self._lock:
            self.strays.append(Refused(method, url, why, threading.current_thread().name))
