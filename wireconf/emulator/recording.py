"""Record mode through the emulator: a recording proxy, so that a runtime only ever holds a placeholder.

``RecordingAnswers`` answers an e2e case's site from its ``Exchange`` as ``ExchangeAnswers`` does, and
forwards what the cassette does not answer (record modes ``once``, ``new_episodes``, ``all``) to the
provider, keeping the answer through the exchange: the one writer (``wireconf.cassettes.writer``)
scrubs, scans and refuses it exactly as an in-process recording. The request a runtime sent carries
the placeholder key it was given (``PLACEHOLDER_KEY``); the process that forwards drops every
credential the request carries and adds the provider's real ones as its API reference says they are
sent (``Provider.authorised``). That process is the one that holds the keys:

- ``DirectUpstream``: the pytest process (the emulator serving ``exec:`` runtimes and the thread and
  inline runners), with its own HTTP client;
- ``PassageUpstream``: the forked case runner, whose network is closed and whose environment need hold
  no key: the request goes through the recording passage and the pytest process adds the key
  (``wireconf.cassettes.passage``).

Either sends only to the provider's origins (``wireconf.cassettes.recording.allowed_origins``: its
hosts over HTTPS, or the base URL the user set in its SDK's variable, where the request is re-based).
A runtime process holds no key to begin with: it is started with
``wireconf.providers.runtime_environ.runtime_environ`` (no credential, the placeholder under each key
variable, the SDKs' base-URL variables pointing at the emulator when a seat is given).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit, urlunsplit

from wireconf.cassettes.recording import allowed_origin
from wireconf.cassettes.store import RecordedResponse
from wireconf.core.errors import WireconfError
from wireconf.emulator.answers import (
    HOLD_QUIET,
    HOLD_STALL,
    CapturedRequest,
    ExchangeAnswers,
    Refused,
    Reply,
    Responder,
    Unanswered,
    exchange_answer,
)
from wireconf.providers.provider import Provider
from wireconf.providers.registry import PROVIDERS
from wireconf.providers.secret_values import key_values, redact, renderings

if TYPE_CHECKING:
    from wireconf.cassettes.exchange import Exchange
    from wireconf.cassettes.passage import Passage

Forwarded = tuple[int, str, list[tuple[str, str]], bytes]
"""``(status, reason, headers, body)`` of the provider's answer, the body decoded."""

NOT_FORWARDED = frozenset(
    {
        "host",
        "connection",
        "content-length",
        "keep-alive",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
"""Request headers that describe the connection to the emulator, not the request: the HTTP client
that forwards writes its own."""

NOT_ANSWERED = frozenset(
    {"content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"}
)
"""Response headers of the provider's connection (its body is kept decoded, as vcrpy keeps it)."""


class UpstreamUnreachable(WireconfError, ConnectionError):
    """The provider could not be reached from the process that forwards (the site refuses the request:
    the case is an error, as any network problem is)."""


class Upstream(Protocol):
    """Where a recording proxy sends a request the cassette does not answer: raises ``OSError`` (a
    ``ConnectionError``) when it cannot."""

    def forward(
        self, provider: Provider, method: str, url: str, headers: list[tuple[str, str]], body: bytes
    ) -> Forwarded: ...


def upstream_url(url: str, provider: Provider, environ: Mapping[str, str]) -> str:
    """Where a request to ``url`` (the provider's public URL, as the site captured it) goes: there, or
    re-based on the base URL the user set in the SDK's variable (``OPENAI_BASE_URL``, …), as the SDK
    would send it. A base URL that ends with the API version the public path starts with (``…/v1``:
    OpenAI's SDK takes it so) stands for the origin and the version; any other for the origin."""
    base = environ.get(provider.base_url_variable, "").strip()
    if not base:
        return url
    public, chosen = urlsplit(url), urlsplit(base)
    path, prefix = public.path, chosen.path.rstrip("/")
    version = "/" + path.lstrip("/").partition("/")[0]
    if version != "/" and prefix.endswith(version):
        path = path[len(version) :]
    return urlunsplit((chosen.scheme, chosen.netloc, prefix + path, public.query, ""))


def _outgoing(headers: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
    return [(k, v) for k, v in headers if k.lower() not in NOT_FORWARDED]


class DirectUpstream:
    """The pytest process's way out: its own HTTP client (the proxy settings of its environment
    honoured, as the SDK's), the credentials read from ``environ`` when a request leaves."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ
        self._client: Any = None
        self._lock = threading.Lock()

    def forward(
        self, provider: Provider, method: str, url: str, headers: list[tuple[str, str]], body: bytes
    ) -> Forwarded:
        import httpx

        from wireconf.cassettes.network_guard import GUARD

        url, headers = provider.authorised(url, headers, self.environ)
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(trust_env=True, timeout=httpx.Timeout(600.0, connect=30.0))
            client = self._client
        try:
            with GUARD.allowed():
                response = client.send(httpx.Request(method, url, headers=headers, content=body))
        except httpx.HTTPError as exc:
            raise UpstreamUnreachable(f"{type(exc).__name__}: {exc}") from None
        return (
            response.status_code,
            response.reason_phrase,
            list(response.headers.multi_items()),
            response.content,
        )

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()


class PassageUpstream:
    """The forked case runner's way out: the recording passage to the pytest process, which adds the
    credentials there (the runner's environment need hold none)."""

    def __init__(self, passage: Passage) -> None:
        self.passage = passage

    def forward(
        self, provider: Provider, method: str, url: str, headers: list[tuple[str, str]], body: bytes
    ) -> Forwarded:
        return self.passage.forward(method, url, headers, body, provider=provider.name)


def default_upstream(environ: Mapping[str, str]) -> Upstream:
    """The passage where this process has one (the forked runner), else this process's own client."""
    from wireconf.cassettes.network_guard import GUARD

    return PassageUpstream(GUARD.passage) if GUARD.passage is not None else DirectUpstream(environ)


class RecordingAnswers:
    """An e2e case's cassette, recording what it does not answer (see the module); ``hold``: an
    ``incremental`` case's first event stream is gated, as ``ExchangeAnswers`` gates it."""

    def __init__(
        self, exchange: Exchange, upstream: Upstream, hold: tuple[float, float] | None = None
    ) -> None:
        self.exchange = exchange
        self.upstream = upstream
        self.hold = hold
        self.provider = PROVIDERS[exchange.provider]
        self._lock = threading.Lock()

    def respond(self, request: CapturedRequest) -> Reply:
        from wireconf.cassettes.exchange import ClientClosed

        exchange = self.exchange
        with self._lock:  # the exchange keeps its requests, and what answered them, in order
            try:
                sent = exchange.send(request.method, request.url, list(request.headers), request.body)
            except ClientClosed as exc:
                return Unanswered(str(exc))
            recorded = exchange.replay(sent)
            if recorded is None and not exchange.records:
                return Unanswered(exchange.unmatched_message(sent))
            if recorded is None:
                recorded_now = self._record(request, sent)
                if isinstance(recorded_now, Refused):
                    return recorded_now
                recorded = recorded_now
            return exchange_answer(exchange, recorded, self.hold)

    def _record(self, request: CapturedRequest, sent: Any) -> RecordedResponse | Refused:
        exchange, provider = self.exchange, self.provider
        target = upstream_url(request.url, provider, exchange.environ)
        if not allowed_origin(target, provider.name, exchange.environ):
            return Refused(request.method, target, f"record mode: not an origin of {provider.title}")
        try:
            status, reason, headers, body = self.upstream.forward(
                provider, request.method, target, _outgoing(request.headers), request.body
            )
        except (OSError, EOFError) as exc:  # PassageRefused is a ConnectionError
            return Refused(request.method, target, f"record mode: the provider was not reached ({exc})")
        kept = [(k, v) for k, v in headers if k.lower() not in NOT_ANSWERED]
        exchange.keep(sent, status, reason, kept, body)  # as answered: the writer refuses a secret in it
        return withheld(RecordedResponse(status, grouped(kept), body), exchange.environ)


def grouped(headers: list[tuple[str, str]]) -> dict[str, list[str]]:
    """``[(name, value), …]`` → ``{name: [value, …]}``, in order (a ``RecordedResponse``'s headers)."""
    by_name: dict[str, list[str]] = {}
    for key, value in headers:
        by_name.setdefault(key, []).append(value)
    return by_name


def withheld(response: RecordedResponse, environ: Mapping[str, str]) -> RecordedResponse:
    """``response`` as the runtime gets it: every rendering of a credential of ``environ`` that the
    provider echoed (a key in an error message, a header) replaced (``secret_values.redact``), so that
    the runtime never holds one; the exchange keeps the answer as it came, and the writer refuses it."""
    values = key_values(environ)
    if not values:
        return response
    headers = {
        name: [redact(value, values) for value in values_] for name, values_ in response.headers.items()
    }
    body = response.body
    for name, _, rendering in renderings(values):
        body = body.replace(rendering.encode(), f"<${name}>".encode())
    if headers == response.headers and body == response.body:
        return response
    return RecordedResponse(response.status, headers, body)


def e2e_responder(exchange: Exchange, hold_last: bool = False) -> Responder:
    """What answers an e2e case's site: its cassette (``ExchangeAnswers``) in replay; in record mode the
    recording proxy, forwarding through this process's way out (``default_upstream``). ``hold_last``
    (an ``incremental`` case): either gates the first event stream (``exchange_answer``)."""
    if not exchange.records:
        return ExchangeAnswers(exchange, hold_last=hold_last)
    hold = (HOLD_STALL, HOLD_QUIET) if hold_last else None
    return RecordingAnswers(exchange, default_upstream(exchange.environ), hold)
