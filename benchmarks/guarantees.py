"""What each guarantee of the harness costs, per case and per run, measured on the operation itself (best
of many repetitions, CPU time: steady on a loaded machine, where a session's wall time is not).

    .venv/bin/python benchmarks/guarantees.py [--repeat 7]

- **the sandbox**: the forked runner's network and mount namespaces (the corpus read-only) and dropped
  capabilities (once per runner process: timed in a forked child), and the in-process guard's
  bookkeeping around each case (the attempts since the case began, the threads it started).
- **results read as results only**: the pytest process unpickles each message of the runner process
  with a restricted unpickler (``safe_pickle.loads_only``), against ``pickle.loads`` of the same bytes.
- **capped, redacted reports**: the outermost report wrapper (``record_mode``) on the three reports of a
  passing case, with no key set and with one set, and on a property that quotes a 1 MB exception.
- **the cassettes watch**: one look after a case with nothing changed (an inotify poll, the audit
  taken), and what the audit hook costs per audit event times the events of a case.
- **the corpus guard**: the corpus hashed twice per run (before any runtime starts, at the session's
  end) and compared by ``stat`` once (at collection), per case of the corpus.
- **the signed parse cache**: verifying the signature, and unpickling each file's parse with the
  restricted unpickler against ``pickle.loads`` of the same bytes, per process that collects the corpus.
- **announced cassette writes**: a ledger line per cassette written (record mode only).
- **the forked runner** (where the sandbox and the time limit's kill live): the fork of a warm pytest
  process and the runner's end (its page tables made and torn down: once per runner process, timed
  in this process once it holds what a session's does), and the copy-on-write faults the two
  processes take while the runner lives (each first write to a page the other still maps copies it:
  Python writes a reference count to every object it reads): the minor page faults of a session of
  the benchmark's selection (the pytest process and its runner, less the same session with every case
  deselected) less those of the same sessions with ``--case-runner thread`` (no fork), per case, priced
  by the CPU time of one such fault measured here.

benchmarks/speed.py gives the whole case cost; these are its parts that the guarantees add.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pickle
import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"
AUDIT_EVENTS_PER_CASE = 11
"""Audit events a case of the benchmark's selection raises in the runner process (wire, process and
stream cases of the corpus: 6,400 events over 560 cases, mostly ``builtins.id`` and
``pickle.find_class`` of the parsed-response copies), measured with a counting hook."""


PASSING_CASE = {
    "sandbox: the guard's bookkeeping of a case",
    "results read as results only (a pass)",
    "capped, redacted reports (no key set)",
    "cassettes watch: the look after a case",
    "cassettes watch: the audit hook",
    "corpus guard, spread over the corpus's cases",
    "forked runner: copy-on-write faults",
}
"""The rows a passing case of a run pays, with no key set (what the total line sums)."""


def best_us(fn: Callable[[], object], repeat: int, number: int = 2000) -> float:
    """Microseconds per call: the best of ``repeat`` timings of ``number`` calls (CPU time)."""
    timer = timeit.Timer(fn, timer=__import__("time").process_time)
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


def sandbox(repeat: int) -> list[tuple[str, str, float, str]]:
    from wireconf.cassettes import netns
    from wireconf.cassettes.network_guard import GUARD, charged
    from wireconf.pytest_plugin.runners.base import threads as _threads

    GUARD.install()
    try:
        main = __import__("threading").get_ident()

        def per_case() -> None:
            mark, before = GUARD.mark(), _threads() - {main}
            charged(GUARD.since(mark), before, main)

        guard = best_us(per_case, repeat)
    finally:
        GUARD.uninstall()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # a fresh child, as the runner is: how long its isolation takes
        import time

        started = time.perf_counter()
        isolated, _ = netns.unshare_network(read_only=[str(CASES)])  # as the runner: the corpus read-only
        os.write(write, json.dumps([isolated, time.perf_counter() - started]).encode())
        os._exit(0)
    os.close(write)
    isolated, seconds = json.loads(os.read(read, 1000))
    os.close(read)
    os.waitpid(pid, 0)
    how = (
        "network + mount namespace, corpus read-only, capabilities dropped"
        if isolated
        else "no namespace here (guard only)"
    )
    return [
        ("sandbox: isolating the runner process", f"per runner process ({how})", seconds * 1e6, "run"),
        ("sandbox: the guard's bookkeeping of a case", "per case", guard, "case"),
    ]


def restricted_results(repeat: int) -> list[tuple[str, str, float, str]]:
    from wireconf.core.differences import Difference
    from wireconf.core.safe_pickle import loads_only
    from wireconf.pytest_plugin.case_run import CaseResult
    from wireconf.pytest_plugin.runners import pipe

    passed = CaseResult("judged", watched=str(REPO / "cassettes"))
    failed = CaseResult(
        "judged",
        lines=["the body differs", Difference("request", "$.model", "value", "$.model: 'a' != 'b'", "'b'")],
    )
    out = []
    for label, result in (("a pass", passed), ("a failure", failed)):
        # the runner sends a result as plain data; the pytest process builds no class from the pipe
        # and checks every field (pipe.check_message): against a plain pickle.loads of the same bytes
        data = pickle.dumps(("done", 1, pipe.result_data(result)), pickle.HIGHEST_PROTOCOL)
        restricted = best_us(lambda d=data: pipe.check_message(loads_only(d, {}), 1), repeat)
        plain = best_us(lambda d=data: pickle.loads(d), repeat)
        out.append((f"results read as results only ({label})", "per case", restricted - plain, "case"))
    return out


def capped_reports(repeat: int) -> list[tuple[str, str, float, str]]:
    from wireconf.pytest_plugin import record_mode

    props = [
        ("wireconf_case", "process.openai.chat.real-plain-text"),
        ("wireconf_api", "openai.chat"),
        ("wireconf_kind", "process"),
        ("wireconf_rules", "8.1/plain-text,8.1/content-string"),
        ("wireconf_corpus", str(CASES)),
        ("wireconf_location", "cases/process/openai.chat/plain.yaml:12"),
    ]
    wrapper = record_mode.pytest_runtest_makereport

    def report(properties: list[tuple[str, object]]) -> None:
        made = SimpleNamespace(longrepr=None, sections=[], user_properties=list(properties))
        steps = wrapper(None, None)  # type: ignore[arg-type]
        next(steps)
        with contextlib.suppress(StopIteration):
            steps.send(made)

    def bare(properties: list[tuple[str, object]]) -> None:
        SimpleNamespace(longrepr=None, sections=[], user_properties=list(properties))

    out = []
    saved = os.environ.pop("OPENAI_API_KEY", None)
    try:
        cost = best_us(lambda: report(props), repeat) - best_us(lambda: bare(props), repeat)
        out.append(("capped, redacted reports (no key set)", "per case (3 reports)", 3 * cost, "case"))
        os.environ["OPENAI_API_KEY"] = "sk-proj-benchmark0123456789abcdefABCDEF"
        cost = best_us(lambda: report(props), repeat) - best_us(lambda: bare(props), repeat)
        out.append(("capped, redacted reports (a key set)", "per case (3 reports)", 3 * cost, "case"))
        del os.environ["OPENAI_API_KEY"]
        huge = json.dumps([{"text": "0123456789" * 100_000, "path": "$", "change": "raised"}])
        long_props = [*props, ("wireconf_differences", huge)]
        cost = best_us(lambda: report(long_props), repeat, number=20)
        out.append(("capped, redacted reports (a 1 MB difference)", "per such report", cost, "failure"))
    finally:
        os.environ.pop("OPENAI_API_KEY", None)
        if saved is not None:
            os.environ["OPENAI_API_KEY"] = saved
    return out


def cassettes_watch(repeat: int) -> list[tuple[str, str, float, str]]:
    import sys as _sys

    from wireconf.cassettes.watch import AUDIT, CassetteWatch

    with tempfile.TemporaryDirectory(prefix="wireconf-guarantees-") as tmp:
        os.environ.setdefault("WIRECONF_CACHE_DIR", str(Path(tmp) / "cache"))
        root = Path(tmp) / "cassettes"
        (root / "openai").mkdir(parents=True)
        watch = CassetteWatch.start(root)
        if watch is None:
            return [("cassettes watch", "not available here (no inotify)", 0.0, "case")]
        try:
            look = best_us(lambda: watch.look(()), repeat)
            per_event = best_us(lambda: _sys.audit("builtins.id", 1), repeat, number=20000)
        finally:
            watch.close()
        AUDIT.stop()
        idle = best_us(lambda: _sys.audit("builtins.id", 1), repeat, number=20000)
    return [
        ("cassettes watch: the look after a case", "per case", look, "case"),
        (
            "cassettes watch: the audit hook",
            f"per case ({AUDIT_EVENTS_PER_CASE} events)",
            (per_event - idle) * AUDIT_EVENTS_PER_CASE,
            "case",
        ),
    ]


def corpus_guard(repeat: int) -> list[tuple[str, str, float, str]]:
    from wireconf.kinds.registry import open_corpus
    from wireconf.pytest_plugin.corpus_snapshot import restat, take

    cases = sum(1 for _ in open_corpus(CASES).cases())
    started = take(CASES)

    def per_run() -> None:  # at configure, at collection (stat only), at the session's end
        take(CASES)
        restat(CASES, started)
        take(CASES)

    run = best_us(per_run, repeat, number=3)
    return [
        ("corpus guard: the corpus hashed twice, stat'ed once", f"per run ({cases} cases)", run, "run"),
        ("corpus guard, spread over the corpus's cases", "per case", run / cases, "case"),
    ]


def signed_parse_cache(repeat: int) -> list[tuple[str, str, float, str]]:
    from wireconf.corpus import parsed_files
    from wireconf.corpus.loader import is_case_file

    paths = sorted(p for p in CASES.rglob("*.yaml") if is_case_file(p, CASES))
    cache = parsed_files.ParsedFiles(CASES.resolve(), len(paths))
    if cache.path is None:
        return [("signed parse cache", "not used here", 0.0, "run")]
    for path in paths:
        cache.load(path)
    cache.save(paths)
    blob = cache.path.read_bytes()
    data = blob[parsed_files._SIGNATURE :]
    key = parsed_files._machine_key(cache.path.parent)
    verify = best_us(lambda: parsed_files._verified(key, blob), repeat, number=3)
    entries = pickle.loads(data)[1]
    restricted = best_us(lambda: [parsed_files.safe_loads(v[1]) for v in entries.values()], repeat, 3)
    plain = best_us(lambda: [pickle.loads(v[1]) for v in entries.values()], repeat, 3)
    return [
        (
            f"signed parse cache: the signature checked ({len(blob) // 1024} KiB)",
            "per process",
            verify,
            "run",
        ),
        (
            f"signed parse cache: the restricted unpickler ({len(paths)} files)",
            "per process, against pickle.loads",
            restricted - plain,
            "run",
        ),
    ]


def announced_writes(repeat: int) -> list[tuple[str, str, float, str]]:
    from wireconf.cassettes.watch import announce

    with tempfile.TemporaryDirectory(prefix="wireconf-guarantees-") as tmp:
        os.environ["WIRECONF_CACHE_DIR"] = str(Path(tmp) / "cache")
        text = "interactions: []\n" * 200
        cost = best_us(lambda: announce(Path(tmp) / "openai" / "x.yaml", text), repeat, number=500)
    return [("announced cassette writes", "per cassette written (record mode)", cost, "record")]


SELECTION = ["-p", "no:cacheprovider", "-k", "not mcp", "--kind", "wire", "--kind", "process"]
SELECTION += ["--kind", "stream"]
"""benchmarks/speed.py's case-cost selection: the wire, process and stream cases, MCP ones left out."""


def _faults_and_cases(args: list[str]) -> tuple[int, int]:
    """Minor page faults of one in-process session (this process and its reaped runner) and its cases."""
    import io
    import resource
    from contextlib import redirect_stdout

    import pytest

    from wireconf.pytest_plugin.runners import wait_reaped

    class Count:
        calls = 0

        def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
            self.calls += report.when == "call"

    def faults() -> int:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_minflt + children.ru_minflt

    count = Count()
    before = faults()
    with redirect_stdout(io.StringIO()):
        pytest.main([str(CASES), "-q", *args], plugins=[count])
    wait_reaped()
    return faults() - before, count.calls


def _cow_fault_us(pages: int = 20000) -> float:
    """CPU microseconds of one copy-on-write fault: a write to each page of a buffer a forked child
    still maps, against the same writes once the pages are this process's own again."""
    import time

    buffer = bytearray(pages * 4096)

    def touch(value: int) -> float:
        started = time.process_time()
        for at in range(0, len(buffer), 4096):
            buffer[at] = value
        return time.process_time() - started

    touch(1)
    own = touch(2)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(write)
        os.read(read, 1)  # until the parent has written every page
        os._exit(0)
    os.close(read)
    shared = touch(3)
    os.write(write, b"x")
    os.close(write)
    os.waitpid(pid, 0)
    return (shared - own) / pages * 1e6


def forked_runner(repeat: int) -> list[tuple[str, str, float, str]]:
    """The runner process's price beside its isolation: its fork and end, and the copy-on-write faults
    while it lives (see the module docstring)."""
    import resource

    _faults_and_cases(SELECTION)  # a first session: the SDKs imported, the corpus parsed, as in a run
    fault_us = min(_cow_fault_us() for _ in range(max(1, repeat // 2)))
    rounds = []
    for _ in range(max(1, repeat // 2)):
        added = 0.0
        for runner, sign in (("process", 1), ("thread", -1)):  # the faults the fork adds: the
            # pytest process and its runner, against the same cases run on a thread in this process
            chosen = [*SELECTION, "--case-runner", runner]
            run, cases = _faults_and_cases(chosen)
            empty, _ = _faults_and_cases([*chosen, "-k", "no-case-has-this-name"])
            added += sign * (run - empty) / max(cases, 1)
        rounds.append(added)
    per_case = sorted(rounds)[len(rounds) // 2]

    def cpu() -> float:
        own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    def fork_and_end() -> float:
        started = cpu()
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        return cpu() - started

    fork = min(fork_and_end() for _ in range(repeat)) * 1e6
    return [
        ("forked runner: the fork and the runner's end", "per runner process (warm)", fork, "run"),
        (
            f"forked runner: copy-on-write faults ({per_case:.1f} per case, {fault_us:.2f} µs each)",
            "per case (the pytest process and its runner)",
            per_case * fault_us,
            "case",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rows = []
    for measure in (
        sandbox,
        restricted_results,
        capped_reports,
        cassettes_watch,
        corpus_guard,
        signed_parse_cache,
        announced_writes,
        forked_runner,
    ):
        rows += measure(args.repeat)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; CPU time, best of {args.repeat}")
    print("| guarantee | paid | cost |")
    print("|---|---|---|")
    for label, when, micros, _ in rows:
        shown = f"{micros / 1000:.2f} ms" if micros >= 1000 else f"{micros:.1f} µs"
        print(f"| {label} | {when} | {shown} |")
    summed = [
        label
        for label, _, _, kind in rows
        if kind == "case" and any(label.startswith(passing) for passing in PASSING_CASE)
    ]
    total = sum(micros for label, _, micros, _ in rows if label in summed)
    print(f"a passing case pays {total:.1f} µs for all of them ({'; '.join(summed)})")
    print("(per run / per runner process: once, whatever the number of cases; a negative figure: cheaper")
    print(" than what it replaced, as the restricted unpickler's class lookup is a dict, pickle's an import)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
