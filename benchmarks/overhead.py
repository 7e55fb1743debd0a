"""What the plugin costs per case, against the same reference calls made bare.

    .venv/bin/python benchmarks/overhead.py [--repeat 5]

Through the plugin: `pytest cases` in-process (collection, SDK replay, timer thread, canonicalisation,
comparison, reporting), best of --repeat runs. Reported as the whole run divided by the number of
cases, and as the marginal cost per case: the same run minus one that deselects every case (start-up,
corpus loading and pytest's own session costs), divided by the number of cases.
Bare: the reference functions called directly on inputs prepared beforehand (the SDK objects built in
advance, streams consumed inside the timed call since that is where the SDK parses them); best of
--repeat passes over the corpus.
"""

from __future__ import annotations

import argparse
import io
import time
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from harness.cassettes import CassetteStore
from harness.corpus import Corpus
from harness.kinds.base import HarnessContext, sdk_input
from harness.sdk import SdkReplay
from harness.yaml_source import to_plain
from reference_impl.adapter import FUNCTIONS

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"
KINDS = ("wire", "process", "stream")  # the kinds the bare loop below knows how to call
KIND_OPTIONS = [option for kind in KINDS for option in ("--kind", kind)]


def through_plugin(repeat: int, *extra: str) -> tuple[float, int]:
    best, count = float("inf"), 0
    for _ in range(repeat):
        counter = _Count()
        started = time.perf_counter()
        with redirect_stdout(io.StringIO()):
            pytest.main(
                [str(CASES), "-q", "-p", "no:cacheprovider", *KIND_OPTIONS, *extra], plugins=[counter]
            )
        best = min(best, time.perf_counter() - started)
        count = counter.cases
    return best, count


class _Count:
    cases = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" and dict(report.user_properties).get("wireconf_case"):
            self.cases += 1


def bare(repeat: int) -> tuple[float, int]:
    corpus = Corpus(CASES)
    ctx = HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())
    cases = [case for case in corpus.cases() if case.kind in KINDS]
    best = float("inf")
    for _ in range(repeat):
        calls = []
        for case in cases:  # inputs prepared outside the timed part, as the plugin prepares them
            agent = to_plain(case.raw["agent"])
            if case.kind == "wire":
                calls.append(
                    (FUNCTIONS[("wire", case.api)], (agent, to_plain(case.raw.get("messages", []))), False)
                )
            else:
                sdk_object, _ = sdk_input(ctx, case, stream=case.kind == "stream")
                calls.append((FUNCTIONS[(case.kind, case.api)], (agent, sdk_object), case.kind == "stream"))
        started = time.perf_counter()
        for fn, args, is_stream in calls:
            try:
                result = fn(*args)
                if is_stream:
                    list(result)
            except Exception:
                pass  # the cases that expect an error (a ValueError, or the SDK's APIError mid-stream)
        best = min(best, time.perf_counter() - started)
    return best, len(cases)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    plugin_total, plugin_cases = through_plugin(args.repeat)
    fixed, _ = through_plugin(args.repeat, "-k", "no-case-has-this-name")
    bare_total, bare_cases = bare(args.repeat)
    per_plugin = plugin_total / plugin_cases * 1000
    marginal = (plugin_total - fixed) / plugin_cases * 1000
    per_bare = bare_total / bare_cases * 1000
    print(f"cases: {plugin_cases} through the plugin, {bare_cases} bare")
    print(f"through the plugin: {plugin_total * 1000:8.1f} ms total, {per_plugin:7.3f} ms per case")
    print(f"  session with no case selected: {fixed * 1000:.1f} ms; marginal cost {marginal:.3f} ms per case")
    print(f"bare reference:     {bare_total * 1000:8.1f} ms total, {per_bare:7.3f} ms per case")
    print(
        f"ratio (plugin / bare): {per_plugin / per_bare:.1f}x whole run, {marginal / per_bare:.1f}x marginal"
    )


if __name__ == "__main__":
    main()
