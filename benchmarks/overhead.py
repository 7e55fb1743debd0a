"""What the plugin costs per case, against the same reference calls made bare.

    .venv/bin/python benchmarks/overhead.py [--repeat 5]

Through the plugin: `pytest cases` in-process (collection, SDK replay, timer thread, canonicalisation,
comparison, reporting), best of --repeat runs. Reported as the whole run divided by the number of
cases, and as the marginal cost per case: the same run minus one that deselects every case (start-up,
corpus loading and pytest's own session costs), divided by the number of cases.
Bare: the reference functions called directly on inputs prepared beforehand (the SDK objects built in
advance, streams consumed inside the timed call since that is where the SDK parses them); best of
--repeat passes over the corpus.
Cases with mcp tools are left out of both: each starts an MCP server process, which costs the same
with or without the plugin and would drown the figure (benchmarks/mcp_startup.py measures them).
"""

from __future__ import annotations

import argparse
import io
import time
from collections.abc import Sequence
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from wireconf.cassettes.store import CassetteStore
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.data_paths import resolve_agent_paths
from wireconf.corpus.loader import LoadedCase
from wireconf.kinds.base import HarnessContext, sdk_input
from wireconf.kinds.registry import open_corpus
from wireconf.reference_impl.adapter import FUNCTIONS
from wireconf.reference_impl.tool_kinds.registry import set_registry
from wireconf.sdk.replay import SdkReplay

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"
KINDS = ("wire", "process", "stream")  # the kinds the bare loop below knows how to call
KIND_OPTIONS = [option for kind in KINDS for option in ("--kind", kind)]
WITHOUT_MCP = ["-k", "not mcp"]


def _uses_mcp(case: LoadedCase) -> bool:
    return any(tool.get("kind") == "mcp" for tool in case.raw.get("agent", {}).get("tools") or [])


def through_plugin(repeat: int, *extra: str) -> tuple[float, int]:
    best, count = float("inf"), 0
    for _ in range(repeat):
        counter = _Count()
        started = time.perf_counter()
        with redirect_stdout(io.StringIO()):
            pytest.main(
                [str(CASES), "-q", "-p", "no:cacheprovider", *KIND_OPTIONS, *WITHOUT_MCP, *extra],
                plugins=[counter],
            )
        best = min(best, time.perf_counter() - started)
        count = counter.cases
    return best, count


class _Count:
    cases = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" and dict(report.user_properties).get("wireconf_case"):
            self.cases += 1


def _with_registry(fn: Any, registry: list[Any]) -> Any:
    """The wire call with the case's tool registry set first, as the harness does before each call."""

    def call(*args: Any) -> Any:
        set_registry(registry)
        return fn(*args)

    return call


def bare(repeat: int, kinds: Sequence[str] = KINDS) -> tuple[float, int]:
    corpus = open_corpus(CASES)
    ctx = HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())
    cases = [case for case in corpus.cases() if case.kind in kinds and not _uses_mcp(case)]
    best = float("inf")
    for _ in range(repeat):
        calls = []
        for case in cases:  # inputs prepared outside the timed part, as the plugin prepares them
            agent = resolve_agent_paths(to_plain(case.raw["agent"]), case.path.parent)
            if case.kind == "wire":
                messages = to_plain(case.raw.get("messages", []))
                registry = to_plain(case.raw.get("registry") or [])
                build = _with_registry(FUNCTIONS[("wire", case.api)], registry)
                calls.append((build, (agent, messages), False))
            else:
                sdk_object, _ = sdk_input(ctx, case, case.model.response, stream=case.kind == "stream")
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
