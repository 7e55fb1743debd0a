"""The floor the provider emulator puts under a case, per kind: the case's own HTTP exchanges sent raw
(``http.client``, one keep-alive connection for the process) against the SDK's whole HTTP path and
today's path, side by side in one run.

    .venv/bin/python benchmarks/emulator_floor.py [--repeat 5] [--kinds wire,process,stream,e2e]

Three adapters run each kind's cases (those the reference over endpoints declares) through the kind's
own preparation and call, as ``benchmarks/emulator_overhead.py`` runs them (sites opened, the call, the
sites closed; judging left out):

- ``sdk objects``: the reference on today's path (the SDK object, or a client answered in memory);
- ``endpoint``: the reference over the case's endpoint (``tests/fakes/endpoint_reference.py``: the
  official SDK pointed at the site);
- ``raw``: the requests the ``endpoint`` adapter sent for the case (kept from one pass of it: method,
  path, headers, body), sent again as they were over one ``http.client`` keep-alive connection, each
  response read to its end (a stream in the chunks the socket gives, one item yielded per chunk, so
  that a gated stream's last event is released as for a runtime that processes as it reads). No SDK,
  no runtime: what a case through the emulator costs at least, the harness's site and the server
  included.

Printed per kind: CPU per case (every thread) and, in parentheses, the part spent in threads other than
the caller's (the emulator's server); ``endpoint - raw`` is the SDK's own HTTP path (building the request,
httpx/httpcore, parsing the response), ``raw`` the floor the emulator puts under a case.

``--parts``: the server's CPU per request for the reference over endpoints, part by part (parsing the
request's head, reading its body, recording it, the responder, writing, the gate), each timed inside
the server's thread.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from emulator_overhead import cases_of, one_pass  # noqa: E402

from tests.fakes.endpoint_reference import Adapter as EndpointReference  # noqa: E402
from wireconf.adapter_contract import Endpoint  # noqa: E402
from wireconf.cassettes.store import CassetteStore  # noqa: E402
from wireconf.core.stream_probe import StreamProbe  # noqa: E402
from wireconf.emulator import settle  # noqa: E402
from wireconf.emulator.answers import CapturedRequest  # noqa: E402
from wireconf.emulator.handler import Handler  # noqa: E402
from wireconf.emulator.site import Site  # noqa: E402
from wireconf.kinds.base import HarnessContext  # noqa: E402
from wireconf.kinds.registry import KINDS  # noqa: E402
from wireconf.kinds.sites import CaseSites  # noqa: E402
from wireconf.reference_impl.adapter import ReferenceAdapter  # noqa: E402
from wireconf.sdk.replay import SdkReplay  # noqa: E402

LEFT_OUT = frozenset({"host", "content-length"})
"""Headers ``http.client`` writes itself (the site's address, the body's length)."""


class Raw:
    """Sends the requests kept for the case being run (``queue``: one list per site, in the order the
    kind opens them) over one keep-alive connection, and reads each response to its end."""

    name = "raw-http"
    version = "0"
    adapter_modules = ()

    def __init__(self, declared: set[str]) -> None:
        self.declared = declared
        self.queue: list[list[CapturedRequest]] = []
        self._connection: http.client.HTTPConnection | None = None

    def capabilities(self) -> set[str]:
        return self.declared

    def _exchange(self, endpoint: Endpoint, stream: bool = False) -> Iterator[bytes]:
        origin = urlsplit(endpoint.origin)
        if self._connection is None:
            self._connection = http.client.HTTPConnection(origin.hostname or "", origin.port)
        for request in self.queue.pop(0) if self.queue else []:
            target = origin.path + request.path + (f"?{request.query}" if request.query else "")
            headers = {k: v for k, v in request.headers if k.lower() not in LEFT_OUT}
            try:
                self._connection.request(request.method, target, request.body, headers)
                answer = self._connection.getresponse()
                if not stream:
                    yield answer.read()
                    continue
                while chunk := answer.read1():
                    yield chunk
            except (OSError, http.client.HTTPException):  # a refused request closes the connection
                self._connection.close()

    def build_request(self, api: str, agent: Any, messages: Any, *, endpoint: Endpoint) -> None:
        for _ in self._exchange(endpoint):
            pass

    def process(self, api: str, agent: Any, response: Any, *, endpoint: Endpoint) -> Any:
        return list(self._exchange(endpoint))

    async def process_async(self, api: str, agent: Any, response: Any, *, endpoint: Endpoint) -> Any:
        return list(self._exchange(endpoint))

    def process_stream(self, api: str, agent: Any, events: Any, *, endpoint: Endpoint) -> Iterator[str]:
        for chunk in self._exchange(endpoint, stream=True):
            yield chunk.decode("utf-8", "replace")

    def execute(self, api: str, agent: Any, messages: Any, client: Any, *, endpoint: Endpoint) -> Any:
        return list(self._exchange(endpoint, stream=True))


def kept(ctx: HarnessContext, adapter: Any, cases: list[Any]) -> dict[str, list[list[CapturedRequest]]]:
    """What ``adapter`` sent to each case's sites, per case, one list per site (in the order opened)."""
    found: dict[str, list[list[CapturedRequest]]] = {}
    for case in cases:
        ctx.sites = CaseSites(adapter)
        ctx.opened.clear()
        try:
            call = KINDS[case.kind].prepare(ctx, case)
            with contextlib.suppress(Exception):
                call(adapter)
            found[case.id] = [list(site.captured) for site in ctx.sites.sites]
        finally:
            ctx.sites.close()
    return found


def raw_pass(ctx: HarnessContext, raw: Raw, cases: list[Any], sent: dict[str, Any]) -> tuple[float, ...]:
    """``one_pass`` for the raw adapter, its queue filled per case (outside the measured time is not
    worth it: a list copy)."""
    own, cpu, wall = time.thread_time(), time.process_time(), time.perf_counter()
    for case in cases:
        raw.queue = [list(requests) for requests in sent[case.id]]
        ctx.sites = CaseSites(raw)
        ctx.opened.clear()
        try:
            call = KINDS[case.kind].prepare(ctx, case)
            with contextlib.suppress(Exception):
                call(raw)
        finally:
            ctx.sites.close()
    cpu, wall, own = time.process_time() - cpu, time.perf_counter() - wall, time.thread_time() - own
    return cpu, wall, cpu - own


PARTS = (
    (BaseHTTPRequestHandler, "handle_one_request", "a whole request"),
    (BaseHTTPRequestHandler, "parse_request", "parsing its head (the standard library's)"),
    (Handler, "_body", "reading its body"),
    (Site, "capture", "recording it (Site.capture: its api's route)"),
    (Site, "reply", "the responder's answer"),
    (Handler, "_write", "writing the answer (the gate included)"),
    (StreamProbe, "hold", "the gate: its hold"),
    (settle, "watch", "the gate: finding the runtime's threads"),
)
"""What ``--parts`` times inside the server, each as the CPU time of the thread that runs it."""


def parts(ctx: HarnessContext, kind: str, cases: list[Any], endpoint: EndpointReference) -> None:
    """The server's CPU per request, part by part, over one pass of the reference over endpoints (after
    one that warms up); each part's timing wraps the function, so the figures carry that overhead."""
    spent: dict[str, list[float]] = {label: [0.0, 0] for _, _, label in PARTS}
    timing = [False]

    def timed(function: Any, label: str) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            if not timing[0]:
                return function(*args, **kwargs)
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label][0] += time.thread_time() - started
                spent[label][1] += 1

        return run

    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in PARTS]
    for (owner, name, label), (_, _, function) in zip(PARTS, originals, strict=True):
        setattr(owner, name, timed(function, label))
    try:
        one_pass(ctx, endpoint, cases)
        timing[0] = True
        one_pass(ctx, endpoint, cases)
        timing[0] = False
    finally:
        for owner, name, function in originals:
            setattr(owner, name, function)
    requests = int(spent["a whole request"][1]) or 1
    print(f"{kind}: {len(cases)} cases, {requests} requests; the server's CPU per request, by part")
    for label, (seconds, calls) in spent.items():
        if calls:
            print(f"  {label:48} {seconds / requests * 1e6:7.1f} us  ({int(calls)} calls)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--kinds", default="wire,process,stream,e2e")
    parser.add_argument("--parts", action="store_true", help="the server's CPU per request, part by part")
    options = parser.parse_args()
    ctx = HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())
    endpoint = EndpointReference()
    declared = endpoint.capabilities()
    if options.parts:
        for kind in options.kinds.split(","):
            cases = [c for c in cases_of(kind) if f"{kind}:{c.api}" in declared]
            if cases:
                parts(ctx, kind, cases, endpoint)
        return
    print(f"per case, best of {options.repeat}: CPU of every thread (of threads but the caller's)")
    header = ("kind", "cases", "sdk objects", "endpoint", "raw", "raw/sdk", "sdk http")
    print("{:8} {:>5}  {:>17}  {:>17}  {:>17}  {:>7}  {:>8}".format(*header))
    for kind in options.kinds.split(","):
        cases = [c for c in cases_of(kind) if f"{kind}:{c.api}" in declared]
        if cases:
            compare(ctx, kind, cases, endpoint, options.repeat)


def compare(
    ctx: HarnessContext, kind: str, cases: list[Any], endpoint: EndpointReference, repeat: int
) -> None:
    """One kind's cases three ways, taking turns, best of ``repeat`` after a pass that warms each up."""
    sent = kept(ctx, endpoint, cases)
    raw = Raw({f"{kind}:{c.api}" for c in cases})
    passes = {
        "sdk objects": lambda: one_pass(ctx, ReferenceAdapter(), cases).seconds,
        "endpoint": lambda: one_pass(ctx, endpoint, cases).seconds,
        "raw": lambda: raw_pass(ctx, raw, cases, sent),
    }
    for run in passes.values():
        run()
    best: dict[str, tuple[float, ...]] = {}
    for _ in range(repeat):
        for name, run in passes.items():
            got = run()
            if name not in best or got[0] < best[name][0]:
                best[name] = got
    n = len(cases)
    shown = {name: f"{c / n * 1e3:6.3f} ({s / n * 1e3:5.3f})" for name, (c, _, s) in best.items()}
    ratio = best["raw"][0] / best["sdk objects"][0]
    sdk_http = (best["endpoint"][0] - best["raw"][0]) / n * 1e3
    print(
        f"{kind:8} {n:5d}  {shown['sdk objects']:>17}  {shown['endpoint']:>17}  {shown['raw']:>17}  "
        f"{ratio:6.2f}x  {sdk_http:5.3f} ms"
    )


if __name__ == "__main__":
    main()
