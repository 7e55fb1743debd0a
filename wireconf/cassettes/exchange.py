"""One e2e case's HTTP exchange: what the runtime sent, what answered it, and what gets recorded.

An ``Exchange`` is created per case with the case's cassette (or none yet) and its effective record
mode. The transport asks it to ``replay`` each sent request (the first recorded interaction with the
same route that has not answered yet, see ``wireconf.cassettes.matching``), and in record mode ``keep``s
what the real provider answered. ``finish`` writes the cassette when something new was recorded,
through the one writer that scrubs and scans (``wireconf.cassettes.writer``), merging under the
cassette's lock with what is on disk by then (another run, another xdist worker may have recorded into
it meanwhile); a secret found there is kept as ``refused`` and the file is left untouched. An exchange
whose case was abandoned (``cancel``) sends and writes nothing more.

The exchange is also what the e2e verdict reads, and what a tracing layer can read beside the spans
of the runtime's ``execute``: the requests in order, the interaction that answered each one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from http import HTTPStatus
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from wireconf import __version__
from wireconf.cassettes.matching import (
    Route,
    body_diff_lines,
    json_body,
    nearest,
    route_differences,
    route_of,
)
from wireconf.cassettes.scrub import scrub_uri
from wireconf.cassettes.store import Cassette, CassetteMeta, RecordedResponse
from wireconf.cassettes.writer import CassetteUnreadable, SecretInCassette, update_cassette
from wireconf.core.errors import WireconfError
from wireconf.core.stream_probe import StreamProbe
from wireconf.core.untyped import JSON
from wireconf.providers.registry import PROVIDERS

RECORDED_NOW = -1


class ClientClosed(WireconfError, ConnectionAbortedError):
    """A request sent through the client of a case the time limit stopped: a connection error to the
    SDK (which is what it reads), a wireconf error to whoever shows it."""


@dataclass
class SentRequest:
    """A request as the runtime sent it through the SDK (headers are kept in memory, never shown)."""

    method: str
    uri: str
    headers: list[tuple[str, str]]
    body: bytes | None
    route: Route
    answered_by: int | None = None  # index of the recorded interaction, RECORDED_NOW, or None

    @property
    def json(self) -> JSON:
        return json_body(self.body)

    def __str__(self) -> str:
        return f"{self.method} {scrub_uri(self.uri)}"


@dataclass
class Exchange:
    """The state of one e2e case's HTTP traffic."""

    name: str
    path: Path
    cassette: Cassette | None
    mode: str  # the effective record mode for this cassette
    api: str
    provider: str  # its name: the cassettes folder, the metadata's provider
    environ: Mapping[str, str]
    sent: list[SentRequest] = field(default_factory=list)
    unmatched: list[tuple[SentRequest, list[str]]] = field(default_factory=list)
    new: list[dict[str, Any]] = field(default_factory=list)
    probes: list[StreamProbe] = field(default_factory=list)
    refused: Exception | None = None
    written: Path | None = None
    closers: list[Callable[[], None]] = field(default_factory=list)
    on_written: Callable[[Path], None] | None = None
    cancelled: bool = False
    _played: set[int] = field(default_factory=set)

    def cancel(self) -> None:
        """The case was abandoned: nothing more is sent or written (``finish`` writes nothing)."""
        self.cancelled = True

    @property
    def records(self) -> bool:
        return self.mode != "none"

    @property
    def recorded(self) -> list[tuple[Route, bytes | None]]:
        interactions = self.cassette.interactions if self.cassette is not None else ()
        return [
            (route_of(i.request.method, i.request.uri, i.request.body), i.request.body) for i in interactions
        ]

    def send(self, method: str, uri: str, headers: list[tuple[str, str]], body: bytes | None) -> SentRequest:
        if self.cancelled:
            raise ClientClosed(
                f"wireconf: the case of cassette {self.name} was stopped (--case-timeout); "
                "its client is closed"
            )
        sent = SentRequest(method, uri, headers, body or None, route_of(method, uri, body))
        self.sent.append(sent)
        return sent

    def replay(self, sent: SentRequest) -> RecordedResponse | None:
        """The recorded response for ``sent``, or ``None`` (then it is recorded, or it is unmatched)."""
        if self.mode == "all" or self.cassette is None:
            return None
        for index, (route, _) in enumerate(self.recorded):
            if index not in self._played and route == sent.route:
                self._played.add(index)
                sent.answered_by = index
                return self.cassette.interactions[index].response
        return None

    def unmatched_message(self, sent: SentRequest) -> str:
        """Why nothing answered ``sent``; the lines are also kept for the verdict."""
        number = self.sent.index(sent) + 1
        where = f"cassette {self.name} ({self.path})"
        lines = [f"request {number} ({sent}) matches no recorded interaction of {where}"]
        recorded = self.recorded
        best = nearest(sent.route, sent.body, recorded)
        if best is None:
            lines.append("  the cassette has no interactions")
        else:
            route, body = recorded[best]
            assert self.cassette is not None
            request = self.cassette.interactions[best].request
            differences = route_differences(sent.route, route)
            if not differences and best in self._played:
                differences = ["it matches, but it already answered an earlier request (each answers one)"]
            lines.append(
                f"  nearest: interaction {best} ({request.method} {scrub_uri(request.uri)}): "
                + "; ".join(differences)
            )
            diff = body_diff_lines(sent.body, body)
            if diff:
                lines.append("  the body sent differs from the recorded request's (expected = recorded):")
                lines += [f"    {line}" for line in diff]
        self.unmatched.append((sent, lines))
        return "\n".join(lines)

    def keep(
        self, sent: SentRequest, status: int, reason: str, headers: list[tuple[str, str]], body: bytes
    ) -> None:
        """Keep what the real provider answered, as a vcrpy interaction (scrubbed when written)."""
        request_headers: dict[str, list[str]] = {}
        for key, value in sent.headers:
            request_headers.setdefault(key, []).append(value)
        response_headers: dict[str, list[str]] = {}
        for key, value in headers:
            response_headers.setdefault(key, []).append(value)
        sent.answered_by = RECORDED_NOW
        self.new.append(
            {
                "request": {
                    "method": sent.method,
                    "uri": sent.uri,
                    "headers": request_headers,
                    "body": sent.body,
                },
                "response": {
                    "status": {"code": status, "message": reason or _phrase(status)},
                    "headers": response_headers,
                    "body": {"string": body},
                },
            }
        )

    def finish(self, case_id: str, impl: str, today: date | None = None) -> None:
        """Close the connections to the provider, then write the cassette if something was recorded;
        a secret leaves the file untouched."""
        for close in self.closers:
            close()
        if not self.new or self.cancelled:
            return
        try:
            update_cassette(
                self.path, lambda current: self._merged(current, case_id, impl, today), self.environ
            )
        except SecretInCassette as exc:
            self.refused = exc
            return
        except (_NotOurs, CassetteUnreadable) as exc:
            self.refused = exc
            return
        except _Cancelled:
            return
        self.written = self.path
        if self.on_written is not None:
            self.on_written(self.path)

    def _merged(
        self, current: dict[str, Any] | None, case_id: str, impl: str, today: date | None
    ) -> dict[str, Any]:
        """The cassette to write: what is on disk now (read under the lock) with what this case
        recorded appended (``all``: replacing the recorded interactions with the same routes)."""
        if self.cancelled:
            raise _Cancelled
        loaded: list[dict[str, Any]] = []
        if current is not None:
            provenance = (current.get("wireconf") or {}).get("provenance")
            if provenance != "recorded":
                raise _NotOurs(
                    f"{self.path} became a cassette wireconf did not record ({provenance}) while this case "
                    "ran; nothing was written"
                )
            loaded = list(current["interactions"])
        if self.mode == "all":
            new_routes = {
                route_of(i["request"]["method"], i["request"]["uri"], i["request"]["body"]) for i in self.new
            }
            loaded = [i for i in loaded if _route(i) not in new_routes]
        interactions = [*loaded, *self.new]
        first = interactions[0]["request"]
        meta = CassetteMeta(
            provenance="recorded",
            provider=self.provider,
            api=self.api,
            stream=any(_is_stream(i) for i in interactions),
            endpoint=f"{first['method']} {scrub_uri(first['uri'])}",
            date=today or date.today(),
            sdk=_versions(PROVIDERS[self.provider].distributions),
            wireconf=__version__,
            case=case_id,
            impl=impl,
        )
        return {"wireconf": meta.model_dump(mode="json", exclude_none=True), "interactions": interactions}


class _Cancelled(Exception):
    """The case was abandoned while its cassette waited for the lock."""


class _NotOurs(Exception):
    """The cassette on disk is no longer one wireconf recorded."""


def _route(interaction: dict[str, Any]) -> Route:
    request = interaction["request"]
    body = request.get("body")
    return route_of(request["method"], request["uri"], body.encode() if isinstance(body, str) else body)


def _is_stream(interaction: dict[str, Any]) -> bool:
    headers = interaction["response"].get("headers") or {}
    return any(
        k.lower() == "content-type"
        and any(str(v).startswith("text/event-stream") for v in (vs if isinstance(vs, list) else [vs]))
        for k, vs in headers.items()
    )


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _versions(distributions: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for name in distributions:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out
