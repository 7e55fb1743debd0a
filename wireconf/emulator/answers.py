"""What answers a request on a case's site: the request as captured, and the three ways it ends.

A ``Responder`` is given each request the runtime sends to the site's origin, captured as sent, and
replies with an ``Answer`` (a recorded response, written as recorded), ``Unanswered`` (the connection
is closed without a response, the reason kept where the verdict reads it: an e2e request that no
recorded interaction matches, as the in-process transport raises) or ``Refused`` (nothing of the case
answers it: a network attempt, which makes the case an error). Two responders cover the kinds:
``RecordedAnswers`` (a case's recorded responses for its api's endpoint, each answering one request,
or a fixed answer to every request) and ``ExchangeAnswers`` (an e2e case's cassette, through the same
``Exchange`` the in-process transport and the e2e verdict use). Either holds an ``incremental`` case's
stream back for the runtime's yields (the hold-last-event gate, ``StreamProbe.hold``).
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from wireconf.cassettes.matching import json_body
from wireconf.cassettes.scrub import scrub_uri
from wireconf.cassettes.store import RecordedResponse
from wireconf.core.stream_probe import StreamProbe, split_events
from wireconf.core.untyped import JSON
from wireconf.emulator.routes import EmulatorError

if TYPE_CHECKING:
    from wireconf.cassettes.exchange import Exchange


@dataclass(frozen=True)
class CapturedRequest:
    """A request as the runtime sent it. ``url`` is the one the provider would have received (its
    origin, then the path and query after the site's token), ``path`` and ``query`` are that URL's;
    ``headers`` are in the order and spelling sent; ``api`` is the api whose route the path matches
    (``None``: no api of the site's provider). Headers are kept in memory and never shown (they carry
    whatever key the runtime sent)."""

    method: str
    url: str
    path: str
    query: str
    headers: tuple[tuple[str, str], ...]
    body: bytes
    api: str | None

    @property
    def json(self) -> JSON:
        """The body as JSON (``None``: no body, or not JSON)."""
        return json_body(self.body)

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def __str__(self) -> str:
        return f"{self.method} {scrub_uri(self.url)}"


HOLD_LIMIT = 30.0
"""How long (seconds) the hold-last-event gate waits for the runtime to settle (``settle``: it read all
it was sent and stopped) before it leaves the case unjudged: past any pause of a runtime that works."""

HOLD_STALL = 1.0
"""The clock gate, where ``/proc`` cannot show the runtime settle (``StreamProbe.hold``): how long it
waits for an item before it writes the last event anyway (seconds)."""

HOLD_QUIET = 0.2
"""The clock gate: once items come, how long none must come before it writes the last event (seconds),
so that the items a runtime makes from the events it was sent in one burst all come before it."""


@dataclass(frozen=True)
class Answer:
    """A response to write: an event stream (``probe`` set) one recorded event per chunk, counted as
    each is written; any other body whole. ``hold``: the stream's last event and its end wait for the
    runtime's items (the hold-last-event gate)."""

    response: RecordedResponse
    probe: StreamProbe | None = None
    hold: tuple[float, float] | None = None
    """``(stall, quiet)`` of the hold-last-event gate (``StreamProbe.hold``); ``None``: no hold."""


@dataclass(frozen=True)
class Unanswered:
    """No response: the connection is closed, as a failed connection; ``why`` is for the reader."""

    why: str


@dataclass(frozen=True)
class Refused:
    """A request nothing of the case answers, kept as a network attempt (the case is an error)."""

    method: str
    url: str
    why: str
    thread: str = ""

    def __str__(self) -> str:
        return f"request {self.method} {scrub_uri(self.url)} refused: {self.why}"


Reply = Answer | Unanswered | Refused


class Responder(Protocol):
    """What a site asks for each request the runtime sends to its origin (called on the server's
    connection threads: an implementation keeps its own state safe)."""

    def respond(self, request: CapturedRequest) -> Reply: ...


def answer(response: RecordedResponse) -> Answer:
    """``response`` as an answer: an event stream with a fresh probe over its recorded events."""
    return Answer(response, StreamProbe(split_events(response.body)) if response.is_event_stream else None)


API_METHOD = "POST"
"""Every api a provider record declares is one create call (the record's ``call``): a ``POST``."""


class RecordedAnswers:
    """Recorded responses answering the site's api, in order, each one request (``repeat``: the last one
    answers every request after it, for a runtime that must be answered whatever it sends, as a
    ``wire`` run is).

    ``probe``: the case's own probe (the one its verdict reads) counts the first response's events as
    they are written, and the adapter's yields mark it. ``hold_last`` (an ``incremental`` stream case):
    that response's last event and the end of its body are held until items were yielded (and then
    paused for ``quiet`` seconds), or for ``stall`` seconds: over HTTP the harness cannot know what a
    runtime has read, only what it was sent, so it sends all but the last event and sees whether items
    come (``StreamProbe.hold``)."""

    def __init__(
        self,
        api: str,
        responses: Iterable[RecordedResponse],
        repeat: bool = False,
        *,
        probe: StreamProbe | None = None,
        hold_last: bool = False,
        stall: float = HOLD_STALL,
        quiet: float = HOLD_QUIET,
    ) -> None:
        self.api = api
        self._left = deque(responses)
        self._repeat = repeat
        self._probe = probe
        self._hold = (stall, quiet) if hold_last else None
        self._lock = threading.Lock()
        if probe is not None:
            first = self._left[0] if self._left else None
            if first is None or not first.is_event_stream or split_events(first.body) != probe.events:
                raise EmulatorError(
                    "the case's stream probe counts other events than its recorded response's: "
                    "a probe is given with the event stream it counts"
                )

    def respond(self, request: CapturedRequest) -> Reply:
        if request.api != self.api or request.method != API_METHOD:
            return Refused(request.method, request.url, f"not the {self.api} endpoint ({API_METHOD})")
        with self._lock:
            if not self._left:
                return Refused(
                    request.method,
                    request.url,
                    "the case's recorded response has answered its request already (a recording "
                    "answers one: a second call, or a retry)",
                )
            response = self._left[0] if self._repeat and len(self._left) == 1 else self._left.popleft()
            probe, self._probe = self._probe, None
        if probe is None:
            return answer(response)
        return Answer(response, probe, self._hold)


class ExchangeAnswers:
    """An e2e case's cassette: each request goes to the case's ``Exchange`` (what the in-process
    transport and the e2e verdict use), which names the recorded interaction that answers it or keeps
    why none does. Replay only: a recording goes through the recording proxy, which adds the key.

    ``hold_last`` (an ``incremental`` e2e case): the exchange's first event stream is gated as a stream
    case's is (``RecordedAnswers``), see ``exchange_answer``."""

    def __init__(
        self,
        exchange: Exchange,
        *,
        hold_last: bool = False,
        stall: float = HOLD_STALL,
        quiet: float = HOLD_QUIET,
    ) -> None:
        self.exchange = exchange
        self.hold = (stall, quiet) if hold_last else None
        self._lock = threading.Lock()

    def respond(self, request: CapturedRequest) -> Reply:
        from wireconf.cassettes.exchange import ClientClosed

        exchange = self.exchange
        if exchange.records:
            return Refused(request.method, request.url, "record mode: the emulator replays only")
        with self._lock:  # the exchange keeps its requests in order, one at a time
            try:
                sent = exchange.send(request.method, request.url, list(request.headers), request.body)
            except ClientClosed as exc:
                return Unanswered(str(exc))
            recorded = exchange.replay(sent)
            if recorded is None:
                return Unanswered(exchange.unmatched_message(sent))
            return exchange_answer(exchange, recorded, self.hold)


def exchange_answer(
    exchange: Exchange, response: RecordedResponse, hold: tuple[float, float] | None
) -> Answer:
    """``response`` as an e2e case's site writes it: an event stream's probe kept with the exchange's
    (``Exchange.probes``, as the in-process transport keeps its own). ``hold``: the exchange's first
    event stream is gated; it is the one the yields mark (``AdapterMethod.invoke``: ``probes[0]``) and
    the verdict reads, so a later one (a second turn) is written whole: holding it would wait for
    yields that release nothing and judge nothing."""
    reply = answer(response)
    if reply.probe is None:
        return reply
    first = not exchange.probes
    exchange.probes.append(reply.probe)
    return Answer(response, reply.probe, hold if first else None)
