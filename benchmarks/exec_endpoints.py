"""What an ``exec:`` runtime's case costs over its endpoint (protocol 4's ``endpoints``: its own HTTP
client calls the case's site on the provider emulator) against today's JSON path (the response and the
stream's events as the provider's JSON in protocol messages, ``pipeline``), per kind, side by side.

    .venv/bin/python benchmarks/exec_endpoints.py [--repeat 3] [--kinds wire,process,stream] [--ahead]

One runtime both ways: ``tests/fakes/node_endpoints.mjs`` (Node.js on ``@wireconf/exec``, plain
``fetch``), whose mapping is the same on both paths (``WIRECONF_FAKE_JSON=1`` selects the JSON one), so
the difference is the transport: the emulator's site per case, the runtime's HTTP request and the
server's answer, against the JSON the harness writes into the call. Each round runs ``pytest
cases/<kind>/openai.chat`` once per path, the paths taking turns; a case's cost is its ``duration`` in
the run's report (the adapter call, the site opened and closed, the judging: start-up excluded), the
median over the run's cases (the first carries the run's warm-up), best of ``--repeat`` rounds. Beside
it, the CPU per case: the CPU of the run (pytest and the runtime) less that of a run whose every case
is deselected (the start-up alone), over its cases. The issue's target is 1.2x. ``--ahead``: the runtime
says ``ahead`` on both paths (``WIRECONF_FAKE_AHEAD=1``): the next cases' calls are written while one runs
(over endpoints: not a stream's, whose gate waits for the items the harness reads).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RUNTIME = "exec:node tests/fakes/node_endpoints.mjs"
KINDS = ("wire", "process", "stream")
PATHS = {"json": {"WIRECONF_FAKE_JSON": "1"}, "endpoint": {}}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def one_run(kind: str, path: str, report: Path, select: str = "") -> tuple[float, float, int]:
    """(median seconds per case, CPU seconds of the whole run, cases) of one run of ``kind`` on ``path``
    (``select``: a ``-k`` expression; one that matches nothing measures the start-up alone)."""
    env = {**os.environ, **PATHS[path]}
    env.pop("WIRECONF_EXEC_TRANSCRIPT", None)
    command = [
        sys.executable, "-m", "pytest", f"cases/{kind}/openai.chat", f"--impl={RUNTIME}", "-n", "0", "-q",
        "-p", "no:randomly", "-p", "no:cacheprovider", f"--report={report}",
        *(["-k", select] if select else []),
    ]  # fmt: skip
    before = _children_cpu()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    cpu = _children_cpu() - before
    if select:
        return 0.0, cpu, 0
    if done.returncode not in (0, 1):
        raise SystemExit(
            f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    records = [json.loads(line) for line in report.read_text().splitlines()]
    judged = [r for r in records if r.get("status") in ("passed", "failed")]
    errors = [r["id"] for r in records if r.get("status") == "error"]
    if errors:
        raise SystemExit(f"{kind} on the {path} path: errors in {', '.join(errors[:5])}")
    return statistics.median(r["duration"] for r in judged), cpu, len(judged)


def _best(
    kept: tuple[float, float, int] | None, measured: tuple[float, float, int]
) -> tuple[float, float, int]:
    return measured if kept is None else (min(kept[0], measured[0]), min(kept[1], measured[1]), measured[2])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds (best of)")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, of {', '.join(KINDS)}")
    parser.add_argument("--ahead", action="store_true", help="the runtime says `ahead` on both paths")
    args = parser.parse_args()
    if args.ahead:
        for env in PATHS.values():
            env["WIRECONF_FAKE_AHEAD"] = "1"
    kinds = [kind for kind in KINDS if kind in args.kinds.split(",")]
    if shutil.which("node") is None:
        raise SystemExit("node (Node.js) is not on PATH")
    best: dict[tuple[str, str], tuple[float, float, int]] = {}
    startup: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.repeat):
            order = list(PATHS) if round_ % 2 == 0 else list(reversed(PATHS))
            for kind in kinds:
                for path in order:
                    measured = one_run(kind, path, Path(folder) / f"{kind}-{path}.jsonl")
                    best[(kind, path)] = _best(best.get((kind, path)), measured)
            for path in order:  # the start-up alone: a run whose every case is deselected
                _, cpu, _ = one_run("process", path, Path(folder) / "none.jsonl", select="no-such-case")
                startup[path] = min(startup.get(path, cpu), cpu)
    print(
        "per case: the median duration in the report, and the CPU (pytest and the runtime) of the run "
        f"less that of its start-up alone, over its cases; best of {args.repeat}"
    )
    print(
        f"{'kind':8} {'cases':>5} {'JSON path':>12} {'endpoint':>12} {'ratio':>6}   "
        f"{'CPU JSON':>12} {'CPU endpoint':>12} {'ratio':>6}"
    )
    for kind in kinds:
        json_case, json_cpu, cases = best[(kind, "json")]
        end_case, end_cpu, _ = best[(kind, "endpoint")]
        json_each, end_each = (json_cpu - startup["json"]) / cases, (end_cpu - startup["endpoint"]) / cases
        print(
            f"{kind:8} {cases:>5} {json_case * 1000:>9.2f} ms {end_case * 1000:>9.2f} ms "
            f"{end_case / json_case:>5.2f}x   {json_each * 1000:>9.2f} ms {end_each * 1000:>9.2f} ms "
            f"{end_each / json_each:>5.2f}x"
        )


if __name__ == "__main__":
    main()
