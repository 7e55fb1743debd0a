"""What a request costs through the provider emulator, against today's in-memory SDK transport.

    .venv/bin/python benchmarks/emulator_cost.py [--repeat 5] [--calls 200]

For a few recorded responses (JSON and event streams, three providers), the official SDK makes the
api record's own call and reads the result to its end, four ways, interleaved round by round (so that
the load of a shared machine falls on all alike), best of --repeat:

- ``in-memory``: today's path for process and stream inputs (``wireconf.sdk.transport.ReplayTransport``:
  the recorded bytes handed to the SDK through a MockTransport, one client for every call);
- ``emulator, one client``: the SDK pointed at one site of the emulator (127.0.0.1, a thread of this
  process), one client and its keep-alive connection for every call: the HTTP's own cost;
- ``emulator, per case``: what a case costs: a site opened for it (its token), the SDK client re-pointed
  at the site's base URL (``with_options`` / a client over one shared HTTP client), the call, the site
  closed;
- ``emulator, new connection``: as per case, over a new HTTP client each time (a new TCP connection,
  and the HTTP library's set-up without its TLS context: a runtime that builds its HTTP client per call
  pays that in production too, and today's in-process adapters pay it as well).

Prints milliseconds per call and the ratio of each way to in-memory: CPU time (``time.process_time``:
every thread of the process, the emulator's included), which a loaded machine does not inflate, and
wall time, which it does (the two threads wait for each other and for the cores).

Then two costs of issue 34's later parts, each against its own baseline, interleaved the same way:

- the hold-last-event gate (``--gate-calls``): a stream case per case without the gate, and with it for
  a runtime that yields an item per event as it reads (``RecordedAnswers(probe=, hold_last=True)``):
  the gate's wall time is what it takes to see the runtime settle (``wireconf.emulator.settle``:
  at least ``SETTLE_SPAN``), its CPU what the watching costs (socket diagnostics, ``/proc``);
- record mode (``--record-calls``), against the fake provider of the tests on 127.0.0.1: the e2e SDK
  client with the recording transport (in-process, today's path) and the same call through the
  emulator's recording proxy (a placeholder client, ``RecordingAnswers`` + ``DirectUpstream``); the
  fake provider's own work is in both.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wireconf.cassettes.exchange import Exchange
from wireconf.cassettes.store import RecordedResponse, read_cassette
from wireconf.core.stream_probe import SETTLE_SPAN, StreamProbe, split_events
from wireconf.emulator.answers import RecordedAnswers
from wireconf.emulator.recording import DirectUpstream, RecordingAnswers
from wireconf.emulator.server import Emulator
from wireconf.emulator.site import Site
from wireconf.providers.registry import APIS, PROVIDER_OF
from wireconf.sdk.replay import e2e_client, new_replay, warm_up

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SCENARIOS = (
    ("openai.chat", "openai/chat__01__opentelemetry-python-contrib__test_chat_completion_with_content_i0"),
    ("openai.chat", "openai/chat_stream__03__llm__test_tools_test_tool_use_basic_i0"),
    ("anthropic.messages", "anthropic/anthropic__01__logfire__test_sync_messages_version_latest_i0"),
    (
        "gemini.generate_content",
        "google/gemini_stream__01__openinference__test_instrumentation_test_streaming_text_content_i0",
    ),
)


def drain(result: Any, stream: bool) -> None:
    if stream:
        for _ in result:
            pass


def sdk_client(api: str, site: Site, http: Any, async_http: Any = None) -> Any:
    """The provider's SDK pointed at ``site`` as a runtime points it (the forms ``Endpoint`` gives), over
    the HTTP client(s) given (google-genai builds a TLS context for each client it is not given, and one
    for its websockets: ``wireconf.providers.google`` gives it all three, as here)."""
    endpoint = site.endpoint()
    provider = PROVIDER_OF[api].name
    if provider == "openai":
        import openai

        return openai.OpenAI(
            base_url=endpoint.api_base_url, api_key=endpoint.key, max_retries=0, http_client=http
        )
    if provider == "anthropic":
        import anthropic

        return anthropic.Anthropic(
            base_url=endpoint.origin, api_key=endpoint.key, max_retries=0, http_client=http
        )
    import ssl

    from google import genai
    from google.genai import types

    options = types.HttpOptions(
        base_url=endpoint.origin,
        api_version=endpoint.api_version,
        httpx_client=http,
        httpx_async_client=async_http,
        async_client_args={"ssl": ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)},
    )
    return genai.Client(api_key=endpoint.key, http_options=options)


def ways(emulator: Emulator, api: str, recorded: RecordedResponse, uri: str) -> dict[str, Callable[[], None]]:
    record, provider = APIS[api], PROVIDER_OF[api]
    stream = recorded.is_event_stream
    http = provider.http_module()
    replay, memory_client = new_replay(provider)
    kept = emulator.open_site(api, RecordedAnswers(api, [recorded], repeat=True), recorded_uri=uri)
    shared, shared_async = http.Client(verify=False), http.AsyncClient(verify=False)
    one_client = sdk_client(api, kept, shared, shared_async)

    def in_memory() -> None:
        probe = StreamProbe(split_events(recorded.body)) if stream else None
        drain(record.call(memory_client, replay.prepare(recorded, probe), stream), stream)

    def emulator_one_client() -> None:
        drain(record.call(one_client, {}, stream), stream)

    def per_case(client_http: Any) -> None:
        site = emulator.open_site(api, RecordedAnswers(api, [recorded]), recorded_uri=uri)
        try:
            drain(record.call(sdk_client(api, site, client_http, shared_async), {}, stream), stream)
        finally:
            emulator.close_site(site)

    def new_connection() -> None:
        with http.Client(verify=False) as own:
            per_case(own)

    return {
        "in-memory": in_memory,
        "emulator, one client": emulator_one_client,
        "emulator, per case": lambda: per_case(shared),
        "emulator, new connection": new_connection,
    }


def measure(table: dict[str, Callable[[], None]], repeat: int, calls: int) -> dict[str, tuple[float, float]]:
    """``label → (CPU, wall)`` seconds per call, best of ``repeat`` rounds, the ways interleaved."""
    for run in table.values():  # first calls: imports, pools, parsers
        run()
    wall = dict.fromkeys(table, float("inf"))
    cpu = dict.fromkeys(table, float("inf"))
    for _ in range(repeat):
        for label, run in table.items():
            started, started_cpu = time.perf_counter(), time.process_time()
            for _ in range(calls):
                run()
            cpu[label] = min(cpu[label], (time.process_time() - started_cpu) / calls)
            wall[label] = min(wall[label], (time.perf_counter() - started) / calls)
    return {label: (cpu[label], wall[label]) for label in table}


def show(title: str, found: dict[str, tuple[float, float]]) -> None:
    base_cpu, base_wall = next(iter(found.values()))
    print(title)
    print(f"  {'':26} {'CPU (all threads)':>25}  {'wall':>22}")
    for label, (cpu, wall) in found.items():
        print(
            f"  {label:26} {cpu * 1000:7.3f} ms/call {cpu / base_cpu:5.2f}x"
            f"  {wall * 1000:7.3f} ms/call {wall / base_wall:5.2f}x"
        )


def gated(
    emulator: Emulator, api: str, recorded: RecordedResponse, uri: str
) -> dict[str, Callable[[], None]]:
    """A stream case per case, without and with the gate, the runtime yielding an item per event."""
    record, http = APIS[api], PROVIDER_OF[api].http_module()
    shared, shared_async = http.Client(verify=False), http.AsyncClient(verify=False)

    def per_case(hold: bool) -> None:
        probe = StreamProbe(split_events(recorded.body))
        responder = RecordedAnswers(api, [recorded], probe=probe, hold_last=hold)
        site = emulator.open_site(api, responder, recorded_uri=uri)
        try:
            for _ in record.call(sdk_client(api, site, shared, shared_async), {}, True):
                probe.mark_yield()
        finally:
            emulator.close_site(site)

    return {"per case, no gate": lambda: per_case(False), "per case, gate": lambda: per_case(True)}


def recording(emulator: Emulator, environ: dict[str, str], folder: Path) -> dict[str, Callable[[], None]]:
    """openai.chat recorded from the fake provider: in-process (the recording transport under the e2e
    client) and through the emulator's recording proxy. Nothing is written (no ``finish``)."""
    api, record = "openai.chat", APIS["openai.chat"]
    http = PROVIDER_OF[api].http_module()
    shared = http.Client(verify=False)
    upstream = DirectUpstream(environ)

    def exchange() -> Exchange:
        return Exchange("bench", folder / "bench.yaml", None, "all", api, "openai", environ)

    def in_process() -> None:
        record.call(e2e_client(api, exchange()), {}, False)

    def through_emulator() -> None:
        site = emulator.open_site(api, RecordingAnswers(exchange(), upstream))
        try:
            record.call(sdk_client(api, site, shared), {}, False)
        finally:
            emulator.close_site(site)

    return {"in-process transport": in_process, "emulator recording proxy": through_emulator}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument(
        "--gate-calls", type=int, default=10, help="per round (each gated call waits at least SETTLE_SPAN)"
    )
    parser.add_argument("--record-calls", type=int, default=50)
    parser.add_argument("--only", choices=("replay", "gate", "record"), help="one part only")
    args = parser.parse_args()
    calls = max(5, args.calls if args.repeat > 1 else min(args.calls, 40))
    with Emulator() as emulator:
        for api, name in SCENARIOS:
            cassette = read_cassette(REPO / "cassettes" / f"{name}.yaml", name)
            interaction = cassette.interactions[0]
            warm_up(api)
            response, uri = interaction.response, interaction.request.uri
            kind = "stream" if response.is_event_stream else "json"
            title = f"{api} ({kind}, {name.split('/')[-1][:48]}):"
            if args.only in (None, "replay"):
                show(title, measure(ways(emulator, api, response, uri), args.repeat, calls))
            if args.only in (None, "gate") and response.is_event_stream:
                found = measure(gated(emulator, api, response, uri), args.repeat, args.gate_calls)
                show(f"{title} the hold-last-event gate (SETTLE_SPAN {SETTLE_SPAN * 1000:.0f} ms)", found)
        if args.only in (None, "record"):
            import tempfile

            from tests.fake_provider import PLANTED_KEYS, FakeProvider

            fake = FakeProvider(PLANTED_KEYS).start()
            environ = {**os.environ, **fake.environ()}
            saved = dict(os.environ)
            os.environ.update(environ)  # the in-process client reads the base URL as a user's SDK does
            try:
                with tempfile.TemporaryDirectory() as folder:
                    found = measure(
                        recording(emulator, environ, Path(folder)), args.repeat, args.record_calls
                    )
                show("openai.chat recorded from the fake provider on 127.0.0.1:", found)
            finally:
                os.environ.clear()
                os.environ.update(saved)
                fake.stop()


if __name__ == "__main__":
    main()
