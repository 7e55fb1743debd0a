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
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wireconf.cassettes.store import RecordedResponse, read_cassette
from wireconf.emulator.answers import RecordedAnswers
from wireconf.emulator.server import Emulator
from wireconf.emulator.site import Site
from wireconf.providers.registry import APIS, PROVIDER_OF
from wireconf.sdk.replay import new_replay, warm_up
from wireconf.stream_probe import StreamProbe, split_events

REPO = Path(__file__).resolve().parent.parent

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    calls = max(5, args.calls if args.repeat > 1 else min(args.calls, 40))
    with Emulator() as emulator:
        for api, name in SCENARIOS:
            cassette = read_cassette(REPO / "cassettes" / f"{name}.yaml", name)
            interaction = cassette.interactions[0]
            warm_up(api)
            table = ways(emulator, api, interaction.response, interaction.request.uri)
            for run in table.values():  # first calls: imports, pools, parsers
                run()
            wall = dict.fromkeys(table, float("inf"))
            cpu = dict.fromkeys(table, float("inf"))
            for _ in range(args.repeat):
                for label, run in table.items():
                    started, started_cpu = time.perf_counter(), time.process_time()
                    for _ in range(calls):
                        run()
                    cpu[label] = min(cpu[label], (time.process_time() - started_cpu) / calls)
                    wall[label] = min(wall[label], (time.perf_counter() - started) / calls)
            kind = "stream" if interaction.response.is_event_stream else "json"
            print(f"{api} ({kind}, {name.split('/')[-1][:48]}):")
            print(f"  {'':26} {'CPU (all threads)':>25}  {'wall':>22}")
            for label in table:
                print(
                    f"  {label:26} {cpu[label] * 1000:7.3f} ms/call {cpu[label] / cpu['in-memory']:5.2f}x"
                    f"  {wall[label] * 1000:7.3f} ms/call {wall[label] / wall['in-memory']:5.2f}x"
                )


if __name__ == "__main__":
    main()
