"""What a case costs through the provider emulator (an adapter that takes ``endpoint``) against today's
path (the SDK objects the harness hands over), per kind, side by side in one run.

    .venv/bin/python benchmarks/emulator_overhead.py [--repeat 5] [--kinds wire,process,stream,e2e]

The same runtime, the reference, served two ways: ``ReferenceAdapter`` (today's path: a ``process``
case gets the SDK object parsed from the recorded bytes, once per process; an ``e2e`` case an SDK client
whose transport answers in memory; a ``wire`` case returns the body) and the thin reference-over-endpoint
adapter of ``tests/fakes/endpoint_reference.py`` (the official SDK pointed at the case's site, a new
client per call as most runtimes build one; ``wire`` sends the built body through the SDK and the
captured request is judged). Each case goes through the kind's own preparation and call as the plugin
runs them (``prepare`` opens the site, the call runs the adapter, the sites are closed: what the harness
pays per case), judging left out (the same for both). CPU time is the process's, all threads (the
emulator's server thread included); wall time beside it. Best of ``--repeat`` passes, the two variants
taking turns kind by kind, after one pass that warms both up.

Printed per kind: ms per case for each, the ratio, and each variant's CPU split by the thread that spent
it (``EmulatorCpu``): the caller's (the runtime's call: the SDK building and sending its request,
reading and parsing the response; the harness's preparation and site), the emulator's threads (what the
emulator itself costs), the runtime's other threads (LiteLLM's success-logging pool, an SDK's).
Through the plugin, the emulator's threads' share is printed beside the ratio.

Then the adapters moved onto the endpoint (LangChain's and LiteLLM's ``wire``, ``process``, ``stream``
and ``e2e``, where the chat model / ``completion`` is pointed at the case's site), each against
its previous path kept here as a subclass: the same runtime call with its HTTP transport answered in
memory by the response re-serialised from the SDK object (``previous_paths.answering`` /
``recorded_answer``; a ``wire`` body taken there, answered with an error), an e2e request
forwarded through the handed SDK client (``previous_paths.forwarding``), on the cases each declares, the
same way (``--moved none`` to skip, ``--moved langchain`` for one).
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import sys
import threading
import time
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from overhead import _uses_mcp  # noqa: E402  # benchmarks/ is on sys.path when this script runs
from previous_paths import REFUSED, answering, forwarding, recorded_answer  # noqa: E402

from tests.fakes.endpoint_reference import Adapter as EndpointReference  # noqa: E402
from wireconf.adapters import langchain, litellm  # noqa: E402
from wireconf.adapters.http_answer import Answer  # noqa: E402
from wireconf.adapters.langchain import LangChainAdapter  # noqa: E402
from wireconf.adapters.litellm import LiteLLMAdapter  # noqa: E402
from wireconf.adapters.own_clients import PROCESS_MESSAGES, without_stream  # noqa: E402
from wireconf.cassettes.downloads import Downloads  # noqa: E402
from wireconf.cassettes.store import CassetteStore  # noqa: E402
from wireconf.emulator import settle  # noqa: E402
from wireconf.emulator.answers import Answer as SiteAnswer  # noqa: E402
from wireconf.emulator.handler import (  # noqa: E402
    FRAMING_HEADERS,
    Handler,
    HostServer,
)
from wireconf.exec_protocol.http_bridge import HttpBridge  # noqa: E402
from wireconf.kinds.base import HarnessContext  # noqa: E402
from wireconf.kinds.registry import KINDS, open_corpus  # noqa: E402
from wireconf.kinds.sites import (  # noqa: E402
    CaseSites,
    running,
)
from wireconf.providers.registry import PROVIDER_OF  # noqa: E402
from wireconf.reference_impl.adapter import ReferenceAdapter  # noqa: E402
from wireconf.sdk.replay import SdkReplay  # noqa: E402

WIRE_APIS = ("openai.chat", "openai.responses", "anthropic.messages", "openai.images")
"""wire: the apis whose SDK sends the built body unchanged (tests/integration/test_endpoint_kinds.py)."""


def cases_of(kind: str) -> list[Any]:
    corpus = open_corpus(REPO / "cases")
    chosen = [c for c in corpus.cases() if c.kind == kind and not _uses_mcp(c)]
    return [c for c in chosen if kind != "wire" or c.api in WIRE_APIS]


class EmulatorCpu:
    """CPU the emulator's own threads spend (``settle.OWN_THREADS``): each connection's thread measured
    in itself (``HostServer.process_request_thread`` wrapped, for this benchmark only: its handler's
    set-up and tear-down counted when the connection ends, each request's handling as it ends, so that
    a keep-alive connection's requests count in the pass they were made in), and the serving loops'
    threads (accepting, starting a thread per connection) read by their clocks. What is left of a
    pass's CPU beside the caller's thread is the runtime's own threads (an SDK's, LiteLLM's logging
    pool) and the harness's. Installed once per process (the plugin runs import this module again)."""

    def __init__(self) -> None:
        self.handled = 0.0
        self._lock = threading.Lock()
        self._mine = threading.local()
        if getattr(HostServer.process_request_thread, "wireconf_timed", False):
            return
        real_request, real_connection = Handler.handle_one_request, HostServer.process_request_thread

        def handle_one_request(handler: Any) -> None:
            started = time.thread_time()
            try:
                real_request(handler)
            finally:
                spent = time.thread_time() - started
                self._mine.counted = getattr(self._mine, "counted", 0.0) + spent
                self._add(spent)

        def process_request_thread(server: Any, request: Any, address: Any) -> None:
            started, self._mine.counted = time.thread_time(), 0.0
            try:
                real_connection(server, request, address)
            finally:
                self._add(time.thread_time() - started - self._mine.counted)

        process_request_thread.wireconf_timed = True  # type: ignore[attr-defined]
        Handler.handle_one_request = handle_one_request  # type: ignore[method-assign]
        HostServer.process_request_thread = process_request_thread  # type: ignore[method-assign]

    def _add(self, seconds: float) -> None:
        with self._lock:
            self.handled += seconds

    def total(self) -> float:
        loops = 0.0
        for thread in threading.enumerate():
            if thread.name == settle.OWN_THREADS and thread.ident is not None:
                with contextlib.suppress(OSError):
                    loops += time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
        return self.handled + loops


EMULATOR_CPU = EmulatorCpu()


@dataclass
class Spent:
    """One pass's seconds: CPU of every thread, wall, and the CPU split by whose thread spent it."""

    cpu: float
    wall: float
    caller: float
    emulator: float

    @property
    def others(self) -> float:
        """The runtime's own threads (and the harness's, if it had any): neither the caller nor the
        emulator."""
        return self.cpu - self.caller - self.emulator

    @property
    def seconds(self) -> tuple[float, float, float]:
        """CPU, wall, and CPU of the threads but the caller's."""
        return self.cpu, self.wall, self.cpu - self.caller


def one_pass(ctx: HarnessContext, adapter: Any, cases: list[Any]) -> Spent:
    """What ``cases`` run once on ``adapter`` cost, split by thread owner."""
    emulator = EMULATOR_CPU.total()
    own, cpu, wall = time.thread_time(), time.process_time(), time.perf_counter()
    for case in cases:
        ctx.sites = CaseSites(adapter)
        ctx.opened.clear()
        try:
            call = KINDS[case.kind].prepare(ctx, case)
            with contextlib.suppress(Exception):  # an expected error, an ungated incremental case
                call(adapter)
        finally:
            ctx.sites.close()
    cpu, wall, own = time.process_time() - cpu, time.perf_counter() - wall, time.thread_time() - own
    return Spent(cpu, wall, own, EMULATOR_CPU.total() - emulator)


def plugin_cpu(paths: list[str], impl: str, select: str) -> tuple[float, float, int]:
    """CPU seconds of one ``pytest`` run in this process (``--case-runner thread``: the cases, the
    harness and the emulator all run here), the emulator's threads' share of it, and the number of
    cases it ran."""
    counter = _Count()
    emulator = EMULATOR_CPU.total()
    started = time.process_time()
    with redirect_stdout(io.StringIO()):
        pytest.main(
            [*paths, "-q", "-p", "no:cacheprovider", f"--impl={impl}", "--case-runner=thread", "-k", select],
            plugins=[counter],
        )
    return time.process_time() - started, EMULATOR_CPU.total() - emulator, counter.cases


class _Count:
    cases = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "setup" and dict(report.user_properties).get("wireconf_case"):
            self.cases += 1


def through_plugin(
    kinds: list[str], repeat: int, impls: dict[str, str], label: str = "the reference"
) -> None:
    """Per case through the plugin, marginal (the run minus one that selects no case, start-up and
    collection): what the 1.2x target is about."""
    names = list(impls)
    last = names[-1]
    print(f"\n{label} through the plugin (thread runner), marginal CPU per case, best of {repeat}")
    print(f"({last}'s against each other's; emulator: its threads' share of {last}'s)")
    print(_line(f"{'kind':8} {'cases':>5}", [f"{name:>11}" for name in names], names, f"{'emulator':>8}"))
    for kind in kinds:
        apis = WIRE_APIS if kind == "wire" else sorted({c.api for c in cases_of(kind)})
        paths = [str(REPO / "cases" / kind / api) for api in apis if (REPO / "cases" / kind / api).is_dir()]
        best: dict[str, tuple[float, float]] = {}
        count = 0
        for _ in range(repeat):
            for name, impl in impls.items():
                empty, _, _ = plugin_cpu(paths, impl, "wireconf_selects_no_case")
                whole, emulator, count = plugin_cpu(paths, impl, "not mcp")
                got = ((whole - empty) / max(count, 1), emulator / max(count, 1))
                if name not in best or got[0] < best[name][0]:
                    best[name] = got
        ratios = {name: best[last][0] / best[name][0] for name in names}
        shown = [f"{best[name][0] * 1e3:8.3f} ms" for name in names]
        print(_line(f"{kind:8} {count:5d}", shown, names, f"{best[last][1] * 1e3:5.2f} ms", ratios))


def _line(
    lead: str, cells: list[str], names: list[str], tail: str, ratios: dict[str, float] | None = None
) -> str:
    """One line of a table: the lead, a cell per variant, the last variant against each other one (their
    heads where ``ratios`` is not given), the tail."""
    against = [f"{'vs ' + name:>14}" if ratios is None else f"{ratios[name]:13.2f}x" for name in names[:-1]]
    return f"{lead}  " + "  ".join(cells) + "  " + "  ".join(against) + f"  {tail}"


def site_in_memory(request: Any) -> Answer:
    """What the case's site answers ``request`` (sent to its URL), handed over in memory: the emulator's
    capture and reply, without its server, the socket, or the client's HTTP parsing of the bytes."""
    emulator = running()
    url = urlsplit(str(request.url))
    token, _, rest = url.path.lstrip("/").partition("/")
    site = emulator.site(token) if emulator is not None else None
    if site is None:
        return REFUSED
    headers = tuple((str(k), str(v)) for k, v in request.headers.multi_items())
    reply = site.reply(site.capture(request.method, "/" + rest, url.query, headers, request.content))
    if not isinstance(reply, SiteAnswer):
        return REFUSED
    response = reply.response
    kept = [
        (k, v) for k, values in response.headers.items() for v in values if k.lower() not in FRAMING_HEADERS
    ]
    body = reply.probe.chunks() if reply.probe is not None else response.body
    return Answer(response.status, kept, body)


class ReferenceInMemory(EndpointReference):
    """The reference over its endpoint as ``EndpointReference``, every request its SDK sends answered in
    memory by the case's site (``site_in_memory``): the same SDK calls, capture and answers, but no
    server, socket or HTTP bytes. Against it, the endpoint's ratio is what the emulator's HTTP adds to a
    runtime that already goes through its SDK's HTTP client (an ``e2e`` case's client path today)."""

    def build_request(self, api: str, agent: dict[str, Any], messages: Any, *, endpoint: Any) -> None:
        with answering(site_in_memory):
            super().build_request(api, agent, messages, endpoint=endpoint)

    def process(self, api: str, agent: dict[str, Any], response: Any, *, endpoint: Any) -> Any:
        with answering(site_in_memory):
            return super().process(api, agent, response, endpoint=endpoint)

    def process_stream(self, api: str, agent: dict[str, Any], events: Any, *, endpoint: Any) -> Any:
        with answering(site_in_memory):
            yield from super().process_stream(api, agent, events, endpoint=endpoint)

    def execute(self, api: str, agent: dict[str, Any], messages: Any, *, endpoint: Any) -> Any:
        with answering(site_in_memory):
            answer = super().execute(api, agent, messages, endpoint=endpoint)
        return self._streamed(answer) if inspect.isgenerator(answer) else answer

    @staticmethod
    def _streamed(items: Any) -> Any:
        with answering(site_in_memory):
            yield from items


class LangChainBefore(LangChainAdapter):
    """LangChain's adapter on its previous path: the chat model at its default base URL, its transport
    answered with the re-serialised response (``process``/``stream``) or forwarded through the handed
    SDK client, the chat model pointed at its URL (``e2e``); ``wire``: the body the SDK sent taken there,
    answered with an error."""

    def build_request(self, api: str, agent: dict[str, Any], messages: Any) -> Any:  # type: ignore[override]
        written = [langchain.langchain_inputs.message(m) for m in messages]
        with answering(lambda _request: REFUSED, Downloads(messages)) as sent:
            try:
                self._invoke(api, agent, langchain._Call(written, Downloads(messages), {}))
            except Exception:
                if not sent.calls:
                    raise
        return sent.body()

    def process(self, api: str, agent: dict[str, Any], response: object) -> Any:  # type: ignore[override]
        written = [langchain.langchain_inputs.message(m) for m in PROCESS_MESSAGES]
        answer = recorded_answer(response, stream=False)
        with answering(lambda _request: answer):
            return self._invoke(api, agent, langchain._Call(written, Downloads(), {}))

    def process_stream(self, api: str, agent: dict[str, Any], events: Any) -> Any:  # type: ignore[override]
        written = [langchain.langchain_inputs.message(m) for m in PROCESS_MESSAGES]
        answer = recorded_answer(events, stream=True)
        with answering(lambda _request: answer):
            yield from self._stream(api, agent, langchain._Call(written, Downloads(), {}))

    def execute(self, api: str, agent: dict[str, Any], messages: Any, client: Any) -> Any:  # type: ignore[override]
        """Each request forwarded through the handed ``client``, the chat model pointed at its URL."""
        written = [langchain.langchain_inputs.message(m) for m in messages]
        streamed, agent = without_stream(agent)
        described = HttpBridge(client, PROVIDER_OF[api].version_path).description
        pointed = {"base_url": described["base_url"]}
        if api == "gemini.generate_content":
            version = described["api_base_url"].removeprefix(described["base_url"].rstrip("/")).strip("/")
            pointed["api_version"] = version
        call = langchain._Call(written, Downloads(messages), pointed)
        if streamed:
            return self._forwarded_stream(api, agent, call, client)
        with answering(forwarding(client), call.downloads):
            return self._invoke(api, agent, call)

    def _forwarded_stream(self, api: str, agent: dict[str, Any], call: Any, client: Any) -> Any:
        with answering(forwarding(client), call.downloads):
            yield from self._stream(api, agent, call)


class LiteLLMBefore(LiteLLMAdapter):
    """LiteLLM's adapter on its previous path: ``completion`` at its default base URL, its transport
    answered with the re-serialised response, an e2e request forwarded through the handed client, a
    ``wire`` body taken there, answered with an error."""

    def build_request(self, api: str, agent: dict[str, Any], messages: Any) -> Any:  # type: ignore[override]
        arguments = self._arguments(api, agent, [litellm.openai_inputs.message(m) for m in messages])
        with answering(lambda _request: REFUSED, Downloads(messages)) as sent:
            try:
                self._completion(arguments, Downloads(messages))
            except Exception:
                if not sent.calls:
                    raise
        return sent.body()

    def process(self, api: str, agent: dict[str, Any], response: object) -> Any:  # type: ignore[override]
        arguments = self._arguments(api, agent, litellm.PROCESS_MESSAGES)
        answer = recorded_answer(response, stream=False)
        with answering(lambda _request: answer):
            return self._result(self._completion(arguments), agent)

    def process_stream(self, api: str, agent: dict[str, Any], events: Any) -> Any:  # type: ignore[override]
        arguments = self._arguments(api, agent, litellm.PROCESS_MESSAGES)
        answer = recorded_answer(events, stream=True)
        with answering(lambda _request: answer):
            yield from self._stream(arguments)

    def execute(self, api: str, agent: dict[str, Any], messages: Any, client: Any) -> Any:  # type: ignore[override]
        arguments = self._arguments(api, agent, [litellm.openai_inputs.message(m) for m in messages])
        downloads = Downloads(messages)
        if arguments.get("stream") is True:
            return self._forwarded_stream(arguments, client, downloads)
        with answering(forwarding(client), downloads):
            return self._result(self._completion(arguments, downloads), agent)

    def _forwarded_stream(self, arguments: dict[str, Any], client: Any, downloads: Downloads) -> Any:
        with answering(forwarding(client), downloads):
            yield from self._stream(arguments, downloads)


MOVED = {
    "langchain": ("LangChainBefore", ("wire", "process", "stream", "e2e")),
    "litellm": ("LiteLLMBefore", ("wire", "process", "stream", "e2e")),
}
"""Per moved adapter (its ``--impl``): the class of its previous path here, and the kinds it moved."""


def compare(ctx: HarnessContext, label: str, variants: dict[str, Any], kinds: list[str], repeat: int) -> None:
    """Each kind's cases (those the first variant declares) on every variant, best of ``repeat``; the
    last variant's CPU against each earlier one's; each variant's CPU split by thread owner: the
    caller's thread (the runtime's call, the harness's preparation and site), the emulator's threads,
    the other threads (the runtime's own)."""
    names = list(variants)
    last = names[-1]
    print(f"\n{label}: per case, best of {repeat}: CPU of every thread (wall), ms; {last}'s CPU against")
    print("each other's; each variant's CPU split caller / emulator / the runtime's other threads")
    splits = "  ".join(f"{name + ' split':>22}" for name in names)
    print(_line(f"{'kind':8} {'cases':>5}", [f"{name:>16}" for name in names], names, splits))
    for kind in kinds:
        declared = next(iter(variants.values())).capabilities()
        cases = [c for c in cases_of(kind) if f"{kind}:{c.api}" in declared]
        if not cases:
            continue
        for adapter in variants.values():  # warm: SDK imports, parsed responses, the emulator started
            one_pass(ctx, adapter, cases)
        best: dict[str, Spent] = {}
        for _ in range(repeat):
            for name, adapter in variants.items():
                got = one_pass(ctx, adapter, cases)
                if name not in best or got.cpu < best[name].cpu:
                    best[name] = got
        n = len(cases)

        def ms(seconds: float, n: int = n) -> str:
            return f"{seconds / n * 1e3:.2f}"

        shown = [f"{ms(best[name].cpu) + ' (' + ms(best[name].wall) + ')':>16}" for name in names]
        ratios = {name: best[last].cpu / best[name].cpu for name in names}
        split = [f"{ms(best[n_].caller)}/{ms(best[n_].emulator)}/{ms(best[n_].others)}" for n_ in names]
        print(_line(f"{kind:8} {n:5d}", shown, names, "  ".join(f"{x:>22}" for x in split), ratios))


def main() -> None:
    if LiteLLMAdapter().unavailable is None:
        from wireconf.adapters.litellm_objects import import_litellm

        import_litellm().suppress_debug_info = True  # its "Give Feedback" banner on every raise
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kinds", default="wire,process,stream,e2e")
    parser.add_argument("--no-plugin", action="store_true", help="the adapter calls only")
    parser.add_argument("--moved", default="langchain,litellm", help="moved adapters to compare, or none")
    options = parser.parse_args()
    ctx = HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())
    kinds = options.kinds.split(",")
    reference = {
        "sdk objects": ReferenceAdapter(),
        "in memory": ReferenceInMemory(),
        "endpoint": EndpointReference(),
    }
    compare(ctx, "the reference", reference, kinds, options.repeat)
    moved = [name for name in options.moved.split(",") if name in MOVED]
    for name in moved:
        after = LangChainAdapter() if name == "langchain" else LiteLLMAdapter()
        if not after.unavailable:
            before = globals()[MOVED[name][0]]()
            moved_kinds = [k for k in kinds if k in MOVED[name][1]]
            compare(ctx, name, {"before": before, "endpoint": after}, moved_kinds, options.repeat)
    if not options.no_plugin:
        reference = {
            "sdk objects": "reference",
            "in memory": "emulator_overhead:ReferenceInMemory",
            "endpoint": "tests.fakes.endpoint_reference:adapter",
        }
        through_plugin(kinds, options.repeat, reference)
        for name in moved:
            cls, moved_kinds = MOVED[name]
            impls = {"before": f"emulator_overhead:{cls}", "endpoint": name}
            through_plugin([k for k in kinds if k in moved_kinds], options.repeat, impls, name)


if __name__ == "__main__":
    main()
