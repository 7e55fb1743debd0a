"""Which recorded interaction answers a request a runtime sends in an e2e case.

A request matches a recorded one on its *route*: method, path, the query parameters a cassette keeps
(``wireconf.cassettes.scrub.QUERY_PARAMS``, order ignored) and whether it asks for a stream
(``"stream": true`` in a JSON body). The host is
not compared (the harness, not the runtime, chooses it) and neither is the rest of the body: cassettes
of real traffic were recorded by other clients, whose bodies rarely equal what a runtime sends. The
body is judged by the case's own ``expect_request``, written from the rules, with an exact diff.
Each recorded interaction answers one request, in recording order (vcrpy's default).

When nothing matches, ``explain`` names the nearest recorded request and shows how the route and
the body differ from it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from wireconf.cassettes.compare import render_diff
from wireconf.cassettes.scrub import QUERY_PARAMS
from wireconf.core.untyped import JSON


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    stream: bool

    def __str__(self) -> str:
        query = "&".join(f"{k}={v}" for k, v in self.query)
        return (
            f"{self.method} {self.path}"
            + (f"?{query}" if query else "")
            + (" (stream)" if self.stream else "")
        )


def json_body(body: bytes | None) -> JSON:
    """The parsed JSON body, or ``None`` when there is none or it is not JSON."""
    if not body:
        return None
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None


def route_of(method: str, uri: str, body: bytes | None) -> Route:
    parts = urlsplit(uri)
    query = tuple(
        sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() in QUERY_PARAMS)
    )
    parsed = json_body(body)
    stream = isinstance(parsed, dict) and parsed.get("stream") is True
    return Route(method.upper(), parts.path or "/", query, stream)


def route_differences(sent: Route, recorded: Route) -> list[str]:
    out = []
    if sent.method != recorded.method:
        out.append(f"method {sent.method} ≠ recorded {recorded.method}")
    if sent.path != recorded.path:
        out.append(f"path {sent.path} ≠ recorded {recorded.path}")
    if sent.query != recorded.query:
        out.append(f"query {dict(sent.query)} ≠ recorded {dict(recorded.query)}")
    if sent.stream != recorded.stream:
        out.append(f"stream {str(sent.stream).lower()} ≠ recorded {str(recorded.stream).lower()}")
    return out


def nearest(sent: Route, sent_body: bytes | None, recorded: list[tuple[Route, bytes | None]]) -> int | None:
    """The index of the recorded request closest to the sent one: fewest route differences, then
    fewest body differences."""
    if not recorded:
        return None
    sent_json = json_body(sent_body)

    def distance(item: tuple[int, tuple[Route, bytes | None]]) -> tuple[int, int, int]:
        index, (route, body) = item
        body_diff = len(render_diff(json_body(body), sent_json)) if sent_json != json_body(body) else 0
        return (len(route_differences(sent, route)), body_diff, index)

    return min(enumerate(recorded), key=distance)[0]


def body_diff_lines(sent_body: bytes | None, recorded_body: bytes | None) -> list[str]:
    """How the sent body differs from the recorded one (``expected`` = recorded)."""
    sent, recorded = json_body(sent_body), json_body(recorded_body)
    if sent is None or recorded is None:
        if (sent_body or b"") == (recorded_body or b""):
            return []
        return [
            f"body: {len(sent_body or b'')} bytes sent, {len(recorded_body or b'')} bytes recorded (not JSON)"
        ]
    if sent == recorded:
        return []
    return render_diff(recorded, sent)
