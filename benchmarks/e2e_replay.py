"""What an e2e case costs in replay, through the plugin and broken down.

    .venv/bin/python benchmarks/e2e_replay.py [--repeat 5]

Through the plugin: `pytest cases --kind e2e` in-process, best of --repeat, as a whole run per case and
as the marginal cost per case (minus a run that selects no case). Broken down, per case, best of
--repeat: preparing the case (cassette read once per session, a new official SDK client over the
cassette transport) and the adapter call (the reference building its body, the SDK sending it, the
exchange matching and serving the recorded response, the SDK parsing it, the reference processing
it), against the same reference call over a bare MockTransport that returns the recorded bytes.
"""

from __future__ import annotations

import argparse
import io
import time
from contextlib import redirect_stdout
from pathlib import Path

import httpx2
import pytest

from wireconf.cassettes.store import CassetteStore
from wireconf.core.yaml_source import to_plain
from wireconf.kinds import e2e
from wireconf.kinds.base import HarnessContext
from wireconf.kinds.registry import open_corpus
from wireconf.providers import openai
from wireconf.reference_impl.adapter import ReferenceAdapter
from wireconf.sdk.replay import SdkReplay, warm_up

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"


class _Count:
    cases = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" and dict(report.user_properties).get("wireconf_case"):
            self.cases += 1


def through_plugin(repeat: int, *extra: str) -> tuple[float, int]:
    best, count = float("inf"), 0
    for _ in range(repeat):
        counter = _Count()
        started = time.perf_counter()
        with redirect_stdout(io.StringIO()):
            pytest.main(
                [str(CASES), "-q", "-p", "no:cacheprovider", "--kind", "e2e", *extra], plugins=[counter]
            )
        best = min(best, time.perf_counter() - started)
        count = counter.cases
    return best, count


def broken_down(repeat: int) -> tuple[float, float, float, int]:
    corpus = open_corpus(CASES)
    cases = [case for case in corpus.cases() if case.kind == "e2e" and case.api == "openai.chat"]
    ctx = HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())
    adapter = ReferenceAdapter()
    for case in cases:
        warm_up(case.api)
    best_prepare = best_call = best_bare = float("inf")
    for _ in range(repeat):
        prepare = call = bare = 0.0
        for case in cases:
            started = time.perf_counter()
            run = e2e.KIND.prepare(ctx, case)
            prepare += time.perf_counter() - started
            started = time.perf_counter()
            run(adapter)
            call += time.perf_counter() - started
            recorded = ctx.cassettes.load(case.model.cassette).interactions[0].response
            headers = [(k, v) for k, values in recorded.headers.items() for v in values]
            client = openai.client(
                httpx2.MockTransport(
                    lambda _r, h=headers, r=recorded: httpx2.Response(r.status, headers=h, content=r.body)
                )
            )
            agent, messages = to_plain(case.raw["agent"]), to_plain(case.raw.get("messages", []))
            started = time.perf_counter()
            try:
                result = adapter.execute(case.api, agent, messages, client)
                if not isinstance(result, str | list | dict):
                    list(result)
            except Exception:
                if case.model.expect_error is None:  # a refusal, an HTTP error: the case expects it
                    raise
            bare += time.perf_counter() - started
        best_prepare, best_call, best_bare = (
            min(best_prepare, prepare),
            min(best_call, call),
            min(best_bare, bare),
        )
    return best_prepare, best_call, best_bare, len(cases)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    total, cases = through_plugin(args.repeat)
    fixed, _ = through_plugin(args.repeat, "-k", "no-case-has-this-name")
    prepare, call, bare, broken = broken_down(args.repeat)
    print(f"e2e cases: {cases} through the plugin (replay, network blocked)")
    print(f"through the plugin: {total * 1000:8.1f} ms total, {total / cases * 1000:7.2f} ms per case")
    marginal = (total - fixed) / cases * 1000
    print(f"  session with no case selected: {fixed * 1000:.1f} ms; marginal {marginal:.2f} ms per case")
    print(f"broken down over {broken} cases, per case:")
    print(f"  prepare (new SDK client over the cassette transport):        {prepare / broken * 1000:6.2f} ms")
    print(f"  adapter call (reference execute via the SDK, matched, served): {call / broken * 1000:6.2f} ms")
    print(f"  the same execute over a bare MockTransport:                  {bare / broken * 1000:6.2f} ms")


if __name__ == "__main__":
    main()
