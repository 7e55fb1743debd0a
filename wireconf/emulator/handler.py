"""How the emulator's HTTP server handles one connection: the standard library's ``ThreadingHTTPServer``
and ``BaseHTTPRequestHandler``, HTTP/1.1 with keep-alive (an SDK's connection pool is used as with a
provider), each connection on a thread of its own. A request reaches one of three places:

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
as a refusal. Nothing here opens a connection: nothing a runtime sends reaches a network.
"""

from __future__ import annotations

import base64
import binascii
import socket
import ssl
import sys
import threading
from collections.abc import Callable, Iterable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import parse_qsl

from wireconf.cassettes.downloads import Download
from wireconf.emulator import settle
from wireconf.emulator.answers import HOLD_LIMIT, Answer, Refused, Reply
from wireconf.emulator.routes import DOWNLOAD_PATH
from wireconf.emulator.site import PROXY_USER, Site
from wireconf.emulator.tls import Authority


class Host(Protocol):
    """What the handler needs of the emulator (``wireconf.emulator.server.Emulator``): its sites, where
    it keeps strays and failures, its certificate authority."""

    def site(self, token: str) -> Site | None: ...
    def no_site(self, token: str) -> str: ...
    def site_of_credentials(self, header: str | None) -> Site | None: ...
    def stray(self, method: str, url: str, why: str) -> None: ...
    def failed(self, what: str) -> None: ...
    def authority(self) -> Authority: ...


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


class HostServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(
        self,
        emulator: Host,
        address: tuple[str, int],
        listener: socket.socket | None = None,
        diag: settle.Diag | None = None,
    ) -> None:
        self.emulator = emulator
        self.diag = diag
        """Socket diagnostics in ``listener``'s network namespace, where that is not this process's
        (``settle.watch``)."""
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, Handler, bind_and_activate=listener is None)
        if listener is not None:  # a socket already listening (in another network namespace)
            self.socket.close()
            self.socket = listener
            self.server_address = listener.getsockname()

    def finish_request(self, request: Any, client_address: Any) -> None:
        # the connection's thread (``ThreadingMixIn``'s), named as the emulator's: the stream gate
        # watches the runtime's threads, never the emulator's own (``settle.OWN_THREADS``)
        threading.current_thread().name = f"{settle.OWN_THREADS}-connection"
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


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # an event stream's events go as they are written
    wbufsize = -1  # the head and a small body leave in one write (the loop flushes after each request)
    server: HostServer
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
            emulator.stray(self.command, self.path, emulator.no_site(token))
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
        if response.header("content-type") is None and response.body:  # (lane execurl's hunk)
            # a recording kept without its headers gets the type its provider sends (an SDK that reads
            # the body by its type, openai-node's, would take JSON without one for text)
            sent_type = "text/event-stream" if response.is_event_stream else "application/json"
            self.send_header("Content-Type", sent_type)
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
        events = probe.chunks()
        if reply.hold is not None and probe.total > 1:
            # the gate: all but the last event now, the rest once the runtime took them (``settle``)
            self.wfile.write(_chunked(next(events) for _ in range(probe.total - 1)))
            self.wfile.flush()
            seen = settle.watch(self.connection, self.server.diag)
            try:
                probe.hold(*reply.hold, settled=_settled(site, seen), limit=HOLD_LIMIT)
            finally:
                if seen is not None:
                    seen.close()
        self.wfile.write(_chunked(events) + b"0\r\n\r\n")

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


def _settled(site: Site, seen: settle.Watch | None) -> Callable[[float], bool] | None:
    """The gate's signal (``StreamProbe.hold``): the runtime settled, or the case's call ended (its
    site closed: the verdict is made, nothing it reads from then on counts). ``None``: the clock."""
    if seen is None:
        return None
    watched = seen

    def settled(span: float) -> bool:
        return site.closed.is_set() or watched.settled(span)

    return settled


def _chunked(events: Iterable[bytes]) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(event), event) for event in events)


def token_of_credentials(header: str | None) -> str | None:
    """The password of ``Basic`` proxy credentials whose user is ``PROXY_USER``."""
    scheme, _, encoded = (header or "").strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, _, password = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return password if user == PROXY_USER else None
