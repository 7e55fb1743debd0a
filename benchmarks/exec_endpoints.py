"""What an ``exec:`` runtime's case costs over its endpoint (protocol 4's ``endpoints``: its own HTTP
client calls the case's site on the provider emulator) against today's JSON path (the response and the
stream's events as the provider's JSON in protocol messages, ``pipeline``), per kind, side by side.

    .venv/bin/python benchmarks/exec_endpoints.py [--repeat 3] [--kinds wire,process,stream] [--ahead]
    .venv/bin/python benchmarks/exec_endpoints.py --moved ai-sdk [--repeat 3]

One runtime both ways: ``tests/fakes/node_endpoints.mjs`` (Node.js on ``@wireconf/exec``, plain
``fetch``), whose mapping is the same on both paths (``WIRECONF_FAKE_JSON=1`` selects the JSON one), so
the difference is the transport: the emulator's site per case, the runtime's HTTP request and the
server's answer, against the JSON the harness writes into the call. Each round runs, per path (the
paths taking turns), one process that runs ``pytest cases/<kind>/openai.chat`` in itself three times
(``SESSIONS``): all cases (its warm-up), all cases again, the first case alone. A case's wall is its
``duration`` in the second run's report (the adapter call, the site opened and closed, the judging),
the median over its cases; its CPU (pytest's and the runtime's) is the second run's less the third's,
over the other cases: what a case adds to a run, each run's own costs (the runtime spawned, its hello,
its HTTP client loaded at its first request) left out, and printed beside it as the warm-up (the first
run's CPU less the second's). Best of ``--repeat`` rounds. The issue's target is 1.2x. ``--ahead``: the
runtime says ``ahead`` on both paths (``WIRECONF_FAKE_AHEAD=1``): the next cases' calls are written
while one runs (over endpoints: not a stream's, whose gate waits for the items the harness reads).

``--moved ai-sdk`` (or ``prompty-ts``): the shipped runtime instead, on every api of each kind
(``cases/<kind>``, e2e too), its adapter as it is against its adapter at the last commit before it moved
onto endpoints (``MOVED``: the AI SDK's ``server.mjs`` with ``recordedFetch``, a capturing ``fetch`` and
the e2e bridge; prompty-ts's with ``capture.mjs``), those files written beside the current ones (their
imports resolve the same packages) for the run and removed after. The same runtime, its pinned packages
and this harness both ways: what moved is the adapter's path.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RUNTIME = "exec:node tests/fakes/node_endpoints.mjs"
KINDS = ("wire", "process", "stream", "e2e")
PATHS = {"json": {"WIRECONF_FAKE_JSON": "1"}, "endpoint": {}}
IMPLS = {"json": RUNTIME, "endpoint": RUNTIME}
"""Each path's ``--impl`` (``--moved`` replaces both)."""
CASES = "cases/{kind}/openai.chat"

MOVED = {
    "ai-sdk": ("421ff0f^", "wireconf/adapters/ai_sdk", ("server.mjs", "inputs.mjs")),
    "prompty-ts": (
        "590e366^",
        "wireconf/adapters/prompty_ts",
        ("server.mjs", "replay.mjs", "capture.mjs", "inputs.mjs", "results.mjs"),
    ),
}
"""Per shipped exec runtime moved onto endpoints: the commit before its move (421ff0f, 590e366; e2e
followed in 07b6644), its adapter's folder, and the files of its adapter then."""


SESSIONS = ("first", "second", "one")
"""The pytest sessions of one measuring process, in order: every case (the process's warm-up with them:
modules imported, the emulator started), every case again (warm), the first case alone (a warm
session's own cost: the runtime spawned, its hello and its own warm-up, e.g. Node's HTTP client loaded
at its first request, collection). A case's cost is the second less the third, over the other cases."""


def sessions(kind: str, path: str, report: Path) -> dict[str, Any]:
    """One process (``--sessions``) that runs ``SESSIONS`` of ``kind`` on ``path`` with pytest in itself:
    each session's CPU (this process's and its reaped children's: the runtime's), the second session's
    median case duration, its cases."""
    env = {**os.environ, **PATHS[path]}
    env.pop("WIRECONF_EXEC_TRANSCRIPT", None)
    command = [sys.executable, __file__, "--sessions", CASES.format(kind=kind), IMPLS[path], str(report)]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{kind} on the {path} path failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_sessions(cases: str, impl: str, report: Path) -> None:
    """``--sessions``: ``SESSIONS`` in this process; one JSON line on stdout."""
    import io
    from contextlib import redirect_stdout

    import pytest

    def runtime() -> float:  # the runtime's process, reaped when its session ends
        theirs = resource.getrusage(resource.RUSAGE_CHILDREN)
        return theirs.ru_utime + theirs.ru_stime

    def cpu() -> float:  # pytest's (the harness, the emulator) and the runtime's
        mine = resource.getrusage(resource.RUSAGE_SELF)
        return mine.ru_utime + mine.ru_stime + runtime()

    spent: dict[str, float] = {}
    first = ""
    for session in SESSIONS:
        if session == "one":
            records = [json.loads(line) for line in Path(f"{report}.second").read_text().splitlines()]
            first = next((r["id"] for r in records if r.get("status") in ("passed", "failed")), "no_case")
        select = first if session == "one" else "not mcp"
        arguments = [cases, f"--impl={impl}", "-n", "0", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
        started, started_runtime = cpu(), runtime()
        with redirect_stdout(io.StringIO()):
            code = pytest.main([*arguments, f"--report={report}.{session}", "-k", select])
        spent[session] = cpu() - started
        spent[f"{session}-runtime"] = runtime() - started_runtime
        if code not in (0, 1, 5):
            raise SystemExit(f"pytest {' '.join(arguments)} exited {code}")
    records = [json.loads(line) for line in Path(f"{report}.second").read_text().splitlines()]
    judged = [r for r in records if r.get("status") in ("passed", "failed")]
    errors = [r["id"] for r in records if r.get("status") == "error"]
    if not judged or errors:
        raise SystemExit(f"{cases} with {impl}: {len(judged)} judged, errors in {', '.join(errors[:5])}")
    median = statistics.median(r["duration"] for r in judged)
    print(json.dumps({**spent, "median": median, "cases": len(judged)}))


@dataclass
class Best:
    """One kind on one path, best of the rounds: the median case's wall, the CPU per case in a warm
    session (less a warm session of its first case alone, over the other cases), and the warm-up (the
    first full session's CPU less the second's: once a run; the imports are most of it, the emulator's
    start the rest)."""

    median: float = float("inf")
    each: float = float("inf")
    runtime: float = float("inf")
    warm_up: float = float("inf")
    cases: int = 0

    def add(self, got: dict[str, Any]) -> None:
        cases = int(got["cases"])
        self.median = min(self.median, float(got["median"]))
        each = (float(got["second"]) - float(got["one"])) / max(cases - 1, 1)
        if each < self.each:  # the runtime's part of the same round
            self.each = each
            self.runtime = (float(got["second-runtime"]) - float(got["one-runtime"])) / max(cases - 1, 1)
        self.warm_up = min(self.warm_up, float(got["first"]) - float(got["second"]))
        self.cases = cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds (best of)")
    parser.add_argument("--kinds", default="", help=f"comma-separated, of {', '.join(KINDS)}")
    parser.add_argument("--ahead", action="store_true", help="the runtime says `ahead` on both paths")
    parser.add_argument("--moved", choices=sorted(MOVED), help="a shipped runtime: its adapter before/after")
    parser.add_argument("--sessions", nargs=3, metavar=("CASES", "IMPL", "REPORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sessions:
        run_sessions(args.sessions[0], args.sessions[1], Path(args.sessions[2]))
        return
    if args.moved:
        with moved_paths(args.moved):
            measure(args)
        return
    measure(args)


@contextlib.contextmanager
def moved_paths(name: str) -> Iterator[None]:
    """``IMPLS``, ``PATHS`` and ``CASES`` for ``name`` (``MOVED``): its adapter before its move, in a folder
    beside the current one, and as it is now; removed after."""
    global CASES
    commit, folder, files = MOVED[name]
    if name == "ai-sdk":
        from wireconf.adapters.ai_sdk import adapter as current
        from wireconf.adapters.ai_sdk.build import installed

        parent = installed()[0] or REPO
    else:
        from wireconf.adapters.prompty_ts import adapter as current

        parent = (REPO / folder).parent
    found = current()
    if getattr(found, "unavailable", None):
        raise SystemExit(f"--moved {name}: {found.unavailable}")
    now = str(found.command)
    # beside the current adapter (its imports resolve the same packages), one folder per run
    place = Path(tempfile.mkdtemp(prefix=f"{Path(folder).name}-before-{commit.strip('^')}-", dir=parent))
    try:
        for file in files:
            shown = subprocess.run(
                ["git", "show", f"{commit}:{folder}/{file}"], cwd=REPO, capture_output=True, check=True
            )
            (place / file).write_bytes(shown.stdout)
        served = str(REPO / folder / "server.mjs") if name == "prompty-ts" else shlex.split(now)[-1]
        before = now.replace(served, str(place / "server.mjs"))
        IMPLS.clear()
        IMPLS.update({"before": f"exec:{before}", "endpoint": f"exec:{now}"})
        PATHS.clear()
        PATHS.update({"before": {}, "endpoint": {}})
        CASES = "cases/{kind}"
        yield
    finally:
        shutil.rmtree(place, ignore_errors=True)


def measure(args: argparse.Namespace) -> None:
    if args.ahead:
        for env in PATHS.values():
            env["WIRECONF_FAKE_AHEAD"] = "1"
    wanted = args.kinds or ",".join(KINDS if args.moved else KINDS[:-1])  # the fake declares no e2e
    kinds = [kind for kind in KINDS if kind in wanted.split(",")]
    if shutil.which("node") is None:
        raise SystemExit("node (Node.js) is not on PATH")
    best: dict[tuple[str, str], Best] = {(kind, path): Best() for kind in kinds for path in PATHS}
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.repeat):
            order = list(PATHS) if round_ % 2 == 0 else list(reversed(PATHS))
            for kind in kinds:
                for path in order:
                    best[(kind, path)].add(sessions(kind, path, Path(folder) / f"{kind}-{path}.jsonl"))
    print(
        "per case: the median duration in the report; the CPU (pytest and the runtime) per case of a "
        "warm run (less a run of its first case alone), and the ratio of the runtime's process's part "
        "alone (its own HTTP client's and parsing's, no emulator in it); the warm-up (a first run's CPU "
        f"less a warm one's, once a run); best of {args.repeat}"
    )
    one, two = list(PATHS)
    print(
        f"{'kind':8} {'cases':>5} {one:>12} {two:>12} {'ratio':>6}   "
        f"{'CPU ' + one:>12} {'CPU ' + two:>12} {'ratio':>6}   {'runtime':>7}   "
        f"{'warm-up ' + one:>14} {'warm-up ' + two:>14}"
    )
    for kind in kinds:
        a, b = best[(kind, one)], best[(kind, two)]
        print(
            f"{kind:8} {a.cases:>5} {a.median * 1000:>9.2f} ms {b.median * 1000:>9.2f} ms "
            f"{b.median / a.median:>5.2f}x   {a.each * 1000:>9.2f} ms {b.each * 1000:>9.2f} ms "
            f"{b.each / a.each:>5.2f}x   {b.runtime / a.runtime:>6.2f}x   "
            f"{a.warm_up * 1000:>11.0f} ms {b.warm_up * 1000:>11.0f} ms"
        )


if __name__ == "__main__":
    main()
