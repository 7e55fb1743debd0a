"""The hold-last-event gate (``RecordedAnswers(probe=, hold_last=)``): for an ``incremental`` stream case
the emulator writes events 1..n-1, then holds event n and the end of the body until the runtime has
taken them (``wireconf.emulator.settle``: read every byte, its threads stopped), or, where ``/proc``
cannot show that, until items came or a stall passed. A runtime that processes as it reads yields with
n-1 events written; one that buffers gets event n only after, and its items are late by the verdict's
rule (``judging/verdict.py::_incremental``: an item yielded once all ``total`` events were read). Read
through the official SDKs' streaming iterators, sync and async."""

from __future__ import annotations

import asyncio
import dataclasses
import http.client
import inspect
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import REPO
from tests.unit.test_emulator import ANTHROPIC_STREAM, CHAT_STREAM, GEMINI_STREAM, interaction, sdk_client
from wireconf.cassettes.exchange import Exchange
from wireconf.cassettes.store import read_cassette
from wireconf.core.stream_probe import StreamProbe, split_events
from wireconf.emulator import settle
from wireconf.emulator.answers import HOLD_STALL, ExchangeAnswers, RecordedAnswers
from wireconf.emulator.routes import EmulatorError
from wireconf.emulator.server import Emulator
from wireconf.providers.registry import APIS, PROVIDER_OF

STREAMS = [
    ("openai.chat", CHAT_STREAM),
    ("anthropic.messages", ANTHROPIC_STREAM),
    ("gemini.generate_content", GEMINI_STREAM),
]

PATIENT = 60.0
"""A stall no runtime that processes as it reads comes near (the test does not time it: it reads
``stalled``, which says whether the gate let go for an item or for the clock)."""


@pytest.fixture(scope="module")
def emulator():
    with Emulator() as running:
        yield running


def run(
    emulator: Emulator,
    api: str,
    name: str,
    buffered: bool,
    asynchronous: bool,
    early: bool = False,
    pause: float = 0.0,
    nap: float = 0.0,
    **gate: Any,
):
    """The api's SDK stream read through a site; the harness's part as ``AdapterMethod.invoke`` plays it:
    ``mark_yield`` on the case's probe for each item the runtime yields. ``buffered``: the runtime reads
    the whole stream before it yields anything (``early``: but one item, as soon as it starts).
    ``pause``: a runtime that processes as it reads but works that many seconds (on the CPU, as a
    garbage collection does) before its first item; ``nap``: one that sleeps that long (a timer, a
    debounce: blocked, using no CPU) before it."""
    recorded = interaction(name).response
    probe = StreamProbe(split_events(recorded.body))
    responder = RecordedAnswers(api, [recorded], probe=probe, **gate)
    with emulator.serving(api, responder) as site:
        client = sdk_client(site.endpoint(), asynchronous)
        call = APIS[api].call
        if asynchronous:

            async def drain() -> int:
                stream = call(client, {}, True)
                if inspect.isawaitable(stream):
                    stream = await stream
                if buffered:
                    items = [event async for event in stream]
                    for _ in items:
                        probe.mark_yield()
                    return len(items)
                count = 0
                async for _ in stream:
                    probe.mark_yield()
                    count += 1
                return count

            count = asyncio.run(drain())
        else:
            stream = call(client, {}, True)
            count = 0
            if early:
                probe.mark_yield()
                count += 1
            items = list(stream) if buffered else stream
            for _ in items:
                if count == 0 and pause:
                    busy(pause)
                if count == 0 and nap:
                    time.sleep(nap)
                probe.mark_yield()
                count += 1
        assert site.probes == [probe] and not site.refused
    return probe, count


def busy(seconds: float) -> None:
    """Work on the CPU for ``seconds`` (a collection's pause, a slow parse): never blocked, never idle."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def late(probe: StreamProbe) -> list[int]:
    """The verdict's rule: the items yielded only once every event had been read (the last excused)."""
    return [i for i, read in enumerate(probe.read_at_yield[:-1]) if read >= probe.total]


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(("api", "name"), STREAMS, ids=[api for api, _ in STREAMS])
def test_a_runtime_that_processes_as_it_reads_yields_with_the_last_event_held(
    emulator, api, name, asynchronous
):
    probe, count = run(emulator, api, name, False, asynchronous, hold_last=True, stall=PATIENT, quiet=0.5)
    assert not probe.stalled, "the first item released the last event"
    assert probe.read_at_yield[0] == probe.total - 1
    assert late(probe) == []
    assert probe.read == probe.total and count == len(probe.read_at_yield) > 1


@pytest.mark.parametrize(("api", "name"), STREAMS, ids=[api for api, _ in STREAMS])
def test_a_pause_longer_than_the_clocks_stall_is_not_taken_for_buffering(emulator, api, name):
    """The gate waits for the runtime to take what it was sent (``wireconf.emulator.settle``), not for a
    time: a runtime that works for longer than the clock gate's stall before its first item (a
    collection's pause, a loaded machine) still yields with the last event held."""
    probe, count = run(emulator, api, name, False, False, pause=HOLD_STALL * 1.5, hold_last=True)
    assert not probe.stalled and probe.unjudged is None
    assert probe.read_at_yield[0] == probe.total - 1 and late(probe) == [] and count > 1


def test_a_runtime_that_sleeps_on_a_timer_before_its_first_item_is_not_taken_for_buffering(emulator):
    """Blocked and using no CPU is not yet buffering: with no item yielded the runtime gets a stall more
    for one (one that hands its bytes to a timer, a debounce, wakes within it and yields)."""
    probe, count = run(emulator, "openai.chat", CHAT_STREAM, False, False, nap=0.3, hold_last=True)
    assert not probe.stalled and probe.read_at_yield[0] == probe.total - 1 and count > 1


@pytest.mark.parametrize(("api", "name"), STREAMS, ids=[api for api, _ in STREAMS])
def test_a_runtime_that_buffers_is_judged_once_it_waits_for_the_last_event(emulator, api, name):
    """It reads all it was sent and blocks for the rest with no item: the gate lets go once a stall
    passed from then with none, the runtime settled still."""
    probe, count = run(emulator, api, name, True, False, hold_last=True, stall=0.3)
    assert probe.stalled and probe.unjudged is None
    assert set(probe.read_at_yield) == {probe.total}
    assert late(probe) == list(range(count - 1)) and count > 1


@pytest.mark.parametrize(("api", "name"), STREAMS, ids=[api for api, _ in STREAMS])
def test_a_runtime_that_buffers_gets_the_last_event_only_after_the_stall_and_is_late(
    emulator, api, name, monkeypatch
):
    """Where ``/proc`` cannot show the runtime settle, the clock gate decides."""
    monkeypatch.setattr(settle, "watch", lambda connection, diag=None: None)
    probe, count = run(emulator, api, name, True, False, hold_last=True, stall=0.2)
    assert probe.stalled, "no item could come before the last event"
    assert set(probe.read_at_yield) == {probe.total}
    assert late(probe) == list(range(count - 1)) and count > 1


@pytest.mark.parametrize(("api", "name"), STREAMS, ids=[api for api, _ in STREAMS])
def test_one_early_item_does_not_excuse_a_runtime_that_then_buffers(emulator, api, name):
    """The gate writes the last event once items stop coming, not at the first one: a runtime that yields
    a marker at once and then reads the whole stream before its next item is late all the same."""
    probe, count = run(emulator, api, name, True, False, early=True, hold_last=True, stall=PATIENT, quiet=0.5)
    assert not probe.stalled
    assert probe.read_at_yield[0] < probe.total and set(probe.read_at_yield[1:]) == {probe.total}
    assert late(probe) == list(range(1, count - 1)) and count > 2


@pytest.mark.parametrize(("api", "name"), STREAMS, ids=[api for api, _ in STREAMS])
def test_without_the_gate_the_stream_is_written_whole_and_nothing_is_held(emulator, api, name):
    """What the gate changes: without it every event is written before the runtime could yield, so the
    written count cannot tell a runtime that processes as it reads from one that buffers."""
    probe, _ = run(emulator, api, name, False, False)
    assert not probe.stalled
    assert set(probe.read_at_yield) == {probe.total}


def test_the_probe_must_count_the_recorded_events():
    recorded = interaction(CHAT_STREAM).response
    with pytest.raises(EmulatorError, match="probe"):
        RecordedAnswers("openai.chat", [recorded], probe=StreamProbe([b"data: other\n\n"]))


def test_a_yield_from_another_thread_releases_a_held_writer():
    """The gate's two sides: the emulator's connection thread waits, the case's thread yields."""
    probe = StreamProbe([b"a\n\n", b"b\n\n"])
    released = []
    writer = threading.Thread(target=lambda: released.append(probe.hold(PATIENT, 0.05)))
    writer.start()
    probe.mark_yield()
    writer.join()
    assert released == [True] and not probe.stalled
    assert StreamProbe([b"a\n\n"]).hold(0.01, 0.01) is False


def test_a_runtime_that_never_settles_leaves_its_case_unjudged():
    """Past the gate's limit with the runtime still working, the verdict cannot be told: an error (the
    verdict's ``NotJudged``), never "not incremental"."""
    probe = StreamProbe([b"a\n\n", b"b\n\n"])
    assert probe.hold(PATIENT, 0.05, settled=lambda span: False, limit=0.05) is False
    assert probe.unjudged is not None and "cannot be told" in probe.unjudged


# -- an e2e case's exchange (``ExchangeAnswers(hold_last=)``) ------------------------------------------


def exchange_of(name: str, api: str, turns: int = 1) -> Exchange:
    """A replaying exchange over recording ``name`` (``turns``: its interaction repeated, a runtime that
    streams that many times in one call)."""
    path = REPO / "cassettes" / f"{name}.yaml"
    cassette = read_cassette(path, name)
    cassette = dataclasses.replace(cassette, interactions=cassette.interactions[:1] * turns)
    return Exchange(name, path, cassette, "none", api, PROVIDER_OF[api].name, {})


def streamed(client: Any, api: str) -> Any:
    """The SDK's streaming call a runtime makes, on the recorded route (Gemini's names the model)."""
    if api == "gemini.generate_content":
        return client.models.generate_content_stream(model="gemini-2.0-flash", contents="x")
    return APIS[api].call(client, {}, True)


def run_e2e(
    emulator: Emulator, api: str, name: str, buffered: bool, turns: int = 1, **gate: Any
) -> tuple[list[StreamProbe], list[StreamProbe]]:
    """A runtime's ``execute`` over the site: ``turns`` streaming calls, each item yielded as
    ``AdapterMethod.invoke`` marks it (on the exchange's first probe, the one the verdict reads); the
    probes the site wrote and those the exchange keeps."""
    exchange = exchange_of(name, api, turns)
    assert exchange.cassette is not None
    uri = exchange.cassette.interactions[0].request.uri  # the api version the site serves (Gemini's)
    site = emulator.open_site(api, ExchangeAnswers(exchange, **gate), recorded_uri=uri)
    try:
        client = sdk_client(site.endpoint(), asynchronous=False)
        for _ in range(turns):
            stream = streamed(client, api)
            for _ in list(stream) if buffered else stream:
                exchange.probes[0].mark_yield()
    finally:
        emulator.close_site(site)
    refused = list(site.refused)
    assert refused == [] and exchange.unmatched == [] and len(exchange.sent) == turns
    return list(site.probes), exchange.probes


@pytest.mark.parametrize(("api", "name"), STREAMS, ids=[api for api, _ in STREAMS])
def test_an_e2e_runtime_that_processes_as_it_reads_yields_with_the_last_event_held(emulator, api, name):
    written, kept = run_e2e(emulator, api, name, False, hold_last=True, stall=PATIENT, quiet=0.5)
    [probe] = kept
    assert written == [probe], "the probe the site wrote is the exchange's, which the verdict reads"
    assert not probe.stalled and probe.read_at_yield[0] == probe.total - 1
    assert late(probe) == [] and probe.read == probe.total


@pytest.mark.parametrize(("api", "name"), STREAMS, ids=[api for api, _ in STREAMS])
def test_an_e2e_runtime_that_buffers_is_late(emulator, api, name):
    _, [probe] = run_e2e(emulator, api, name, True, hold_last=True, stall=0.3)
    assert probe.stalled and set(probe.read_at_yield) == {probe.total}
    assert late(probe) == list(range(len(probe.read_at_yield) - 1)) and len(probe.read_at_yield) > 1


def test_an_e2e_exchange_without_the_gate_writes_its_stream_whole(emulator):
    _, [probe] = run_e2e(emulator, "openai.chat", CHAT_STREAM, False)
    assert not probe.stalled and set(probe.read_at_yield) == {probe.total}


def test_only_the_e2e_exchanges_first_stream_is_held(emulator):
    """The yields mark the first stream's probe (the one the verdict reads): a second turn's stream is
    written whole, never held for yields that could not release it (it would stall every time)."""
    _, [first, second] = run_e2e(
        emulator, "openai.chat", CHAT_STREAM, False, turns=2, hold_last=True, stall=PATIENT, quiet=0.5
    )
    assert not first.stalled and first.read_at_yield[0] == first.total - 1
    assert not second.stalled and second.read == second.total and not second.released.is_set()


# -- a gate whose runtime is gone, or whose case ended ------------------------------------------------


def stopped_early(emulator: Emulator, close: str, monkeypatch: pytest.MonkeyPatch) -> tuple[StreamProbe, int]:
    """A runtime that processes as it reads and stops reading at its provider's terminal event (LiteLLM
    does), before the held last one, then goes on to other work on the CPU (the next case): it
    ``close``s its connection (``"connection"``), or keeps it open and its case's call ends (``"site"``).
    Returns the probe and how many times the gate looked at the runtime after that, counted while the
    process kept working (a gate watching the next case's work looks every ``settle.SAMPLE``, unbounded
    but by ``HOLD_LIMIT``)."""
    looks = [0]
    look = settle.Watch.look

    def counted(self: settle.Watch) -> settle.Snapshot:
        looks[0] += 1
        return look(self)

    monkeypatch.setattr(settle.Watch, "look", counted)
    recorded = interaction(CHAT_STREAM).response
    probe = StreamProbe(split_events(recorded.body))
    site = emulator.open_site(
        "openai.chat", RecordedAnswers("openai.chat", [recorded], probe=probe, hold_last=True)
    )
    try:
        target = urlsplit(site.endpoint().api_base_url + "/chat/completions")
        connection = http.client.HTTPConnection(target.hostname or "", target.port)
        connection.request("POST", target.path, body=b"{}", headers={"Content-Type": "application/json"})
        answer = connection.getresponse()
        assert answer.read(sum(map(len, probe.events[:-1]))) == b"".join(probe.events[:-1])
        probe.mark_yield()
        if close == "connection":
            connection.close()
        looks[0] = 0
        if close == "site":
            emulator.close_site(site)
        while probe.read < probe.total and looks[0] < 40:  # the next case's work, on the CPU
            pass
        return probe, looks[0]
    finally:
        emulator.close_site(site)
        connection.close()


@pytest.mark.parametrize("close", ["connection", "site"])
def test_a_gate_lets_go_at_once_when_its_runtime_closed_the_connection_or_its_case_ended(
    emulator, close, monkeypatch
):
    """Nothing the runtime reads after it closed its end, or after its case's call returned, counts: the
    gate writes the last event after a look or two, not after watching this process's next work until
    ``HOLD_LIMIT`` (which cost a LiteLLM run tens of milliseconds of CPU a stream case: every look reads
    each thread's ``/proc`` files)."""
    probe, looks = stopped_early(emulator, close, monkeypatch)
    assert probe.read == probe.total and probe.unjudged is None
    assert looks <= 2, f"the gate looked {looks} times at a runtime that was done with its stream"
    assert probe.read_at_yield == [probe.total - 1] and late(probe) == []


def test_a_gate_does_not_watch_another_streams_gate(emulator, monkeypatch):
    """Two gated streams at once in one process (a case sent ahead, a runtime abandoned by the thread
    runner): the second one's connection thread is the emulator's, looking on its own every
    ``settle.SAMPLE`` while its runtime has bytes unread. The first stream's gate, whose watch began
    before that thread existed, still sees its own runtime settle: the emulator's threads are left
    out as they are at each look, not as they were when the watch began. Counted in looks: the first
    gate settles after a few, not after watching the other gate until ``HOLD_LIMIT``."""
    looks: dict[int, int] = {}
    looked = {"first": threading.Event(), "second": threading.Event()}
    ports: dict[int, str] = {}
    stuck = threading.Event()
    look = settle.Watch.look

    def counted(self: settle.Watch) -> settle.Snapshot:
        port = self.client[1]
        looks[port] = looks.get(port, 0) + 1
        if port in ports:
            looked[ports[port]].set()
        if looks[port] > 40:
            stuck.set()
        return look(self)

    monkeypatch.setattr(settle.Watch, "look", counted)
    recorded = interaction(CHAT_STREAM).response
    first, second = (StreamProbe(split_events(recorded.body)) for _ in range(2))
    connections: list[http.client.HTTPConnection] = []
    sites = []

    def ask(name: str, probe: StreamProbe) -> http.client.HTTPConnection:
        site = emulator.open_site(
            "openai.chat", RecordedAnswers("openai.chat", [recorded], probe=probe, hold_last=True)
        )
        sites.append(site)
        target = urlsplit(site.endpoint().api_base_url + "/chat/completions")
        connection = http.client.HTTPConnection(target.hostname or "", target.port)
        connection.connect()
        ports[connection.sock.getsockname()[1]] = name
        connection.request("POST", target.path, body=b"{}", headers={"Content-Type": "application/json"})
        connections.append(connection)
        return connection

    try:
        answer = ask("first", first).getresponse()
        assert answer.read(sum(map(len, first.events[:-1]))) == b"".join(first.events[:-1])
        first.mark_yield()
        looked["first"].wait()  # its watch began: the second connection's thread is newer
        ask("second", second)  # never read: its gate looks on (bytes unread)
        looked["second"].wait()
        done = threading.Event()

        def rest() -> None:  # blocked for the held event, as a runtime waiting for more
            answer.read()
            done.set()
            stuck.set()

        reader = threading.Thread(target=rest, daemon=True)
        reader.start()
        stuck.wait()  # no timeout: a waiting main thread uses no CPU (the runtime must settle)
        assert done.is_set(), f"the first gate looked {looks} times and never let go"
        assert first.read == first.total and second.read == second.total - 1
    finally:
        for site in sites:
            emulator.close_site(site)
        for connection in connections:
            connection.close()
