"""What running a runtime out of process (``--impl exec:``) costs per case, against the same adapter
in-process.

    .venv/bin/python benchmarks/exec_overhead.py [--repeat 5] [--whole-runs 3] [--before CHECKOUT]...
        [--protocols 2,4] [--only-whole-runs]

**Whole runs** (``--whole-runs N``, best of N, the variants taking turns round by round):
``pytest cases --kind K -k "not mcp"`` per kind (wire, process, stream) as commands, start-up
included, in-process and with the reference served by the Python exec helper, in its default
protocol (4: a stream's events sent in batches, ``pipeline``, the last one once the runtime acks the
window, and the next cases' calls written while it works on one, ``ahead``; its default inputs, the
recorded responses; told the run's ``--kind``, it loads only that kind's SDKs) and in protocol 2
(``--protocol 2``: every event pulled with ``next``, one call at a time), each as a ratio to the
in-process run; ``--before CHECKOUT`` adds the same commands run in another checkout (this venv, that
checkout's code first on the path), e.g. the main branch, for a before/after in one run (repeated: each
checkout, named by its folder). Each variant's best round, its ratio, then each round's ratio to the
in-process run of the same round and checkout (``--protocols 4``: the default protocol only). Beside
each wall time, the CPU time the run took (user and system, pytest and every process it waited for:
the runtime, a runner process) and its ratio: on a shared machine the wall times move with the load,
the CPU times much less, so a change in the work done shows there first.

The adapter calls of every case are made directly (inputs prepared beforehand, as the plugin prepares
them outside the time limit; streams consumed inside the timed part), once on the reference adapter
in-process and once through ``ExecAdapter`` on the same adapter served by the Python helper, and for
the cases it declares (process and stream of openai.chat) through the Node.js fake runtime. Then one
specification in two languages: Prompty's TypeScript runtime in Node.js over ``exec:`` (recorded
inputs, parsed by its own SDKs) against Python Prompty in-process, per kind, on the cases both
declare (when ``prompty`` is installed and ``--impl prompty-ts`` finds a build). Best of --repeat
passes; the runtime's start-up is measured apart (it is paid once per run, not per case), and its
warm-up (a runtime that says ``warming`` loads its SDKs after its hello) is waited for before the timed
part, as the plugin waits for it before the first case's time limit.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from overhead import _uses_mcp  # benchmarks/ is on sys.path when this script runs

from wireconf.cassettes.store import CassetteStore
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.data_paths import resolve_agent_paths
from wireconf.exec_protocol.client import ExecAdapter
from wireconf.kinds.base import HarnessContext, sdk_input
from wireconf.kinds.registry import open_corpus
from wireconf.reference_impl.adapter import ReferenceAdapter
from wireconf.sdk.replay import SdkReplay

REPO = Path(__file__).resolve().parent.parent
SERVE = f"{sys.executable} -m wireconf.exec_protocol.serve reference"
NODE = shutil.which("node")


def _raising(call: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The call of a case that expects an error: the error is its result."""

    def run(adapter: Any) -> Any:
        with contextlib.suppress(Exception):
            return call(adapter)

    return run


def calls(
    kinds: tuple[str, ...], apis: tuple[str, ...] = ("openai.chat",)
) -> Callable[[], list[Callable[[Any], Any]]]:
    corpus, ctx = open_corpus(REPO / "cases"), HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())
    cases = [
        c
        for c in corpus.cases()
        if c.kind in kinds and c.api in apis and not _uses_mcp(c)  # a server start, same either way
    ]

    def prepare() -> list[Callable[[Any], Any]]:
        out = []
        for case in cases:
            agent = resolve_agent_paths(to_plain(case.raw["agent"]), case.path.parent)
            if case.kind == "wire":
                messages = to_plain(case.raw.get("messages", []))
                registry = to_plain(case.raw.get("registry") or [])
                out.append(
                    lambda a, ag=agent, m=messages, r=registry, api=case.api: (
                        a.set_tool_registry(r),
                        a.build_request(api, ag, m),
                    )
                )
            elif case.kind == "process":
                response, _ = sdk_input(ctx, case, case.model.response, stream=False)
                out.append(lambda a, ag=agent, r=response, api=case.api: a.process(api, ag, r))
            else:
                events, _ = sdk_input(ctx, case, case.model.response, stream=True)
                out.append(lambda a, ag=agent, e=events, api=case.api: list(a.process_stream(api, ag, e)))
            if case.model.expect_error is not None:
                out[-1] = _raising(out[-1])
        return out

    return prepare


def timed(adapter: Any, prepare: Callable[[], list[Callable[[Any], Any]]], repeat: int) -> tuple[float, int]:
    best, count = float("inf"), 0
    for _ in range(repeat):
        batch = prepare()
        started = time.perf_counter()
        for call in batch:
            call(adapter)
        best, count = min(best, time.perf_counter() - started), len(batch)
    return best, count


def start_up(command: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        adapter = ExecAdapter(command)
        best = min(best, time.perf_counter() - started)
        adapter.close()
    return best


def compare_prompty(repeat: int) -> None:
    """Prompty's TypeScript runtime over exec: against Python Prompty in-process, kind by kind."""
    from wireconf.adapters.prompty_adapter import PromptyAdapter
    from wireconf.adapters.prompty_ts import adapter as prompty_ts

    python, typescript = PromptyAdapter(), prompty_ts()
    for runtime in (python, typescript):
        if getattr(runtime, "unavailable", None):
            print(f"Prompty TypeScript vs Python: skipped, {runtime.name}: {runtime.unavailable}")
            return
    label = f"{typescript.name} {typescript.version} over exec: vs {python.name} {python.version} in-process"
    print(f"Prompty: {label}")
    try:
        for kind in ("wire", "process", "stream"):
            declared = typescript.capabilities()
            apis = tuple(sorted({c.split(":")[1] for c in declared if c.startswith(f"{kind}:")}))
            cases = calls((kind,), apis)

            def prepare(cases: Callable[[], list[Any]] = cases) -> list[Callable[[Any], Any]]:
                return [_raising(call) for call in cases()]  # a real runtime fails some cases: still timed

            inproc, count = timed(python, prepare, repeat)
            typescript.ready()
            out, _ = timed(typescript, prepare, repeat)
            print(
                f"  {kind:8} {count:4} cases   in-process {inproc / count * 1000:7.3f} ms per case   "
                f"exec: {out / count * 1000:7.3f} ms per case"
            )
    finally:
        typescript.close()
    print(f"  runtime start-up {start_up(typescript.command, repeat) * 1000:.0f} ms once per run")


def compare(label: str, command: str, kinds: tuple[str, ...], repeat: int) -> None:
    prepare = calls(kinds)
    inproc, count = timed(ReferenceAdapter(), prepare, repeat)
    remote = ExecAdapter(command)
    try:
        remote.ready()
        out, _ = timed(remote, prepare, repeat)
    finally:
        remote.close()
    boot = start_up(command, repeat)
    per_in, per_out = inproc / count * 1000, out / count * 1000
    print(f"{label}: {count} cases")
    print(f"  in-process {per_in:7.3f} ms per case   exec: {per_out:7.3f} ms per case")
    print(
        f"  overhead {per_out - per_in:.3f} ms per case; runtime start-up {boot * 1000:.0f} ms once per run"
    )


WHOLE_KINDS = ("wire", "process", "stream")


def whole_run(checkout: Path, kind: str, impl: str | None) -> tuple[float, float, str]:
    """The wall time and the CPU time (``os.wait4``: pytest and the processes it waited for) of
    ``pytest cases --kind KIND -k "not mcp"`` run once in ``checkout`` (this venv's Python with that
    checkout's code first on its path), and the run's last line (its outcome counts: a run that did not
    pass is not a figure)."""
    python = sys.executable
    command = [python, "-m", "pytest", "cases", "-q", "-n", "0", "-p", "no:cacheprovider"]
    command += ["--kind", kind, "-k", "not mcp", *([f"--impl=exec:{python} -m {impl}"] if impl else [])]
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    started = time.perf_counter()
    run = subprocess.Popen(command, cwd=checkout, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert run.stdout is not None
    out = run.stdout.read().decode("utf-8", "replace")
    _, _, usage = os.wait4(run.pid, 0)
    run.returncode = 0  # reaped here: Popen must not wait for it again
    cpu = usage.ru_utime + usage.ru_stime
    return time.perf_counter() - started, cpu, (out.strip().splitlines() or [""])[-1]


def compare_whole_runs(repeat: int, before: list[Path], protocols: tuple[int, ...] = (2, 4)) -> None:
    print(f"whole runs, best of {repeat} (load average {os.getloadavg()[0]:.1f}):")
    helper = "wireconf.exec_protocol.serve"
    variants: list[tuple[str, Path, str | None]] = []
    bases: dict[str, str] = {}
    """Each variant's label → the label of the in-process run of its checkout (its ratios' base)."""
    for checkout in before:  # each named by its folder: `before` alone when there is one
        name = "before" if len(before) == 1 else checkout.name[:12]
        variants += [
            (f"{name} in-process", checkout, None),
            (f"{name} exec:", checkout, f"{helper} reference"),
        ]
        bases.update({f"{name} in-process": f"{name} in-process", f"{name} exec:": f"{name} in-process"})
    variants.append(("in-process", REPO, None))
    for protocol in protocols:
        option = "" if protocol == 4 else f"--protocol {protocol} "
        variants.append((f"exec: protocol {protocol}", REPO, f"{helper} {option}reference"))
    warm = float("inf")
    for _ in range(repeat):  # what every exec run pays once, before its first case: the runtime's start
        started = time.perf_counter()
        adapter = ExecAdapter(SERVE)
        adapter.ready()
        warm = min(warm, time.perf_counter() - started)
        adapter.close()
    print(f"  the Python helper from its start to `warm` (every SDK loaded): {warm:.2f} s, once per run")
    for kind in WHOLE_KINDS:
        # the variants take turns, once each per round: a machine that slows down or speeds up over the
        # rounds (a shared host) weighs on all of them alike; each keeps its best round, and each round's
        # ratio to its checkout's in-process run of the same round is shown too
        runs: dict[str, list[tuple[float, float, str]]] = {label: [] for label, _, _ in variants}
        for _ in range(repeat):
            for label, checkout, impl in variants:
                runs[label].append(whole_run(checkout, kind, impl))
        for label, rounds in runs.items():
            base = runs[bases.get(label, "in-process")]
            seconds, _, last = min(rounds)
            cpu = min(r[1] for r in rounds)
            found = re.match(r"(\d+) passed", last)
            per_case = f"{seconds / int(found[1]) * 1000:6.1f} ms per case" if found else ""
            each = "/".join(f"{r[0] / b[0]:.2f}" for r, b in zip(rounds, base, strict=True))
            each_cpu = "/".join(f"{r[1] / b[1]:.2f}" for r, b in zip(rounds, base, strict=True))
            print(
                f"  {kind:8} {label:23} {seconds:6.2f} s  {seconds / min(base)[0]:4.2f}x  {per_case}  "
                f"cpu {cpu:5.2f} s {cpu / min(b[1] for b in base):4.2f}x  rounds {each}, cpu {each_cpu}  "
                f"({last})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--whole-runs", type=int, default=3, help="best of N whole runs (0: none)")
    parser.add_argument(
        "--before", type=Path, action="append", default=[], help="a checkout to run the whole runs from too"
    )
    parser.add_argument(
        "--protocols", default="2,4", help="the exec protocols of the whole runs (default: 2,4)"
    )
    parser.add_argument("--only-whole-runs", action="store_true")
    args = parser.parse_args()
    if args.whole_runs:
        protocols = tuple(int(p) for p in args.protocols.split(","))
        compare_whole_runs(args.whole_runs, args.before, protocols)
    if args.only_whole_runs:
        return
    compare(
        "reference through the Python helper (wire, process, stream)",
        SERVE,
        ("wire", "process", "stream"),
        args.repeat,
    )
    if NODE:
        node = f"{NODE} {REPO / 'tests' / 'fakes' / 'node_runtime.mjs'}"
        compare(
            "Node.js fake vs reference in-process (process, stream)", node, ("process", "stream"), args.repeat
        )
    compare_prompty(args.repeat)


if __name__ == "__main__":
    main()
