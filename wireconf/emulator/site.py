"""One case's site on the emulator: its unguessable token, what answers it, and what it saw.

The token (``secrets.token_urlsafe``: 128 random bits) is the first segment of every path the site
answers and the password of its proxy credentials; no other case's site answers it, and a closed
site answers nothing. A site serves one api (its case's) at that api's public prefix (``routes``),
the media downloads its case's input names (``wireconf.cassettes.downloads``'s rules) through its
proxy, and keeps every request its origin was sent (``captured``) and every one it refused
(``refused``: network attempts, for the harness to make the case an error).
"""

from __future__ import annotations

import secrets
import threading
from urllib.parse import urlsplit

from wireconf.cassettes.downloads import DEFAULT_PORTS, Downloads
from wireconf.core.stream_probe import StreamProbe
from wireconf.emulator.answers import CapturedRequest, Refused, Reply, Responder
from wireconf.emulator.routes import DOWNLOAD_PATH, PLACEHOLDER_KEY, Endpoint, PublicEndpoint
from wireconf.providers.registry import APIS

PROXY_USER = "wireconf"
"""The user name of a site's proxy credentials (the password is its token)."""


def new_token() -> str:
    return secrets.token_urlsafe(16)


class Site:
    """One case's registration: built by ``Emulator.open_site``, ended by ``Emulator.close_site``."""

    def __init__(
        self,
        api: str,
        responder: Responder,
        downloads: Downloads,
        public: PublicEndpoint,
        server: str,
        ca_file: str | None,
    ) -> None:
        self.token = new_token()
        self.api = api
        self.responder = responder
        self.downloads = downloads
        self.public = public
        self.origin = f"{server}/{self.token}"
        """Where the provider's origin stands for this case: ``http://127.0.0.1:<port>/<token>``."""
        host = server.removeprefix("http://")
        self.proxy = f"http://{PROXY_USER}:{self.token}@{host}"
        self.ca_file = ca_file
        self.captured: list[CapturedRequest] = []
        self.refused: list[Refused] = []
        self.probes: list[StreamProbe] = []
        """The event streams written to the runtime, each counted as its events were written."""
        self.closed = threading.Event()
        """Set when the site is closed (its case's call ended): a gate still holding a stream's last
        event lets go (nothing the runtime does from then on counts)."""
        self._lock = threading.Lock()

    def endpoint(self, seated: tuple[str, str] | None = None) -> Endpoint:
        """The site's api, in the forms a runtime is pointed at it (``seated``: the origin and proxy of a
        seat, which answers for this site while it holds it)."""
        version = self.public.prefix.rstrip("/").rpartition("/")[2]
        origin, proxy = seated or (self.origin, self.proxy)
        return Endpoint(
            self.api,
            origin,
            origin + self.public.prefix,
            version,
            PLACEHOLDER_KEY,
            proxy,
            self.ca_file,
            origin + DOWNLOAD_PATH,
        )

    # -- the server's side ---------------------------------------------------------------------------

    def capture(
        self, method: str, path: str, query: str, headers: tuple[tuple[str, str], ...], body: bytes
    ) -> CapturedRequest:
        """A request to the site's origin (``path`` after the token), as sent, kept."""
        url = self.public.origin + path + (f"?{query}" if query else "")
        record = APIS[self.api]
        api = self.api if record.route.match(path) else None
        request = CapturedRequest(method, url, path, query, headers, body, api)
        with self._lock:
            self.captured.append(request)
        return request

    def reply(self, request: CapturedRequest) -> Reply:
        return self.responder.respond(request)

    def refuse(self, method: str, url: str, why: str) -> Refused:
        refused = Refused(method, url, why, threading.current_thread().name)
        with self._lock:
            self.refused.append(refused)
        return refused

    def wrote(self, probe: StreamProbe) -> None:
        with self._lock:
            self.probes.append(probe)

    def tunnels_to(self, host: str, port: int) -> bool:
        """Whether a media URL the case's input names lives on ``host:port`` over ``https`` (a ``CONNECT``
        there is let through to be answered; to anywhere else it is refused)."""
        for url in self.downloads.named:
            parts = urlsplit(url)
            if parts.scheme.lower() != "https" or (parts.hostname or "").lower() != host.lower():
                continue
            if (parts.port or DEFAULT_PORTS["https"]) == port:
                return True
        return False
