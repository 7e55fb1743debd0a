"""``wireconf findings``: run every real runtime through the corpus, refresh its baseline and write the
findings page (``docs/findings.md``) and the compliance page beside it (``docs/findings.html``,
``wireconf.reports.compliance``). Re-run it whenever the corpus or a runtime changes."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from wireconf.cassettes.atomic import write_atomic
from wireconf.commands import Subparsers, add_corpus_argument
from wireconf.core.report_text import path_part
from wireconf.envs.spec import NPM, EnvSpec, Series, parse_env
from wireconf.kinds.registry import open_corpus

COMMAND = "wireconf findings"
RUNTIMES_FILE = "runtimes.yaml"
SIDE_BY_SIDE = (("prompty", "prompty-ts"),)
"""Runtimes that implement one specification in two languages: the page compares each pair."""


@dataclass(frozen=True)
class Runtime:
    """One runtime to judge: the name of its baseline, its --impl, the environment variables it needs and
    the Python whose pytest runs it (``""``: this one, or its environment's). ``spec``, when
    runtimes.yaml gives its ``packages``, is the environment made for it (``wireconf.envs``: its pytest
    runs there, or, ``served``, this pytest with the runtime served from there over ``exec:``),
    ``series`` the packages whose releases ``--releases`` judges."""

    name: str
    impl: str
    env: dict[str, str] = field(default_factory=dict)
    python: str = ""
    spec: EnvSpec | None = None
    series: tuple[Series, ...] = ()
    served: bool = False

    def in_env(self, python: Path) -> Runtime:
        """This runtime run with the Python environment whose interpreter is ``python``."""
        if self.served:  # the harness on this Python
            impl = f"exec:{python} -m wireconf.exec_protocol.serve {self.impl}"
            return replace(self, impl=impl, python=sys.executable)
        return replace(self, python=str(python))


def placeholders() -> dict[str, str]:
    """The value ``{third_party}`` stands for in conformance/runtimes.yaml.

    A relative value (the default: beside the checkout the command runs from) is made absolute here,
    when the file is read: a run that later changes directory (pytester does) must still find the
    sources instead of skipping the runtime as "not here"."""
    third_party = os.environ.get("WIRECONF_THIRD_PARTY") or str(Path("..", "shared", "third-party"))
    return {"third_party": str(Path(third_party).absolute())}


def listed_runtimes(path: Path) -> list[Runtime]:
    """The runtimes ``path`` (conformance/runtimes.yaml) lists, with placeholders filled in."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    values = placeholders()
    out = []
    for name, entry in (data.get("runtimes") or {}).items():
        env = {str(k): str(v).format(**values) for k, v in (entry.get("env") or {}).items()}
        python = str(entry.get("python") or "").format(**values)
        spec, series = parse_env(str(name), entry, str(path))
        impl = str(entry["impl"]).format(**values)
        out.append(Runtime(str(name), impl, env, python, spec, series, bool(entry.get("served"))))
    return out


def _runtimes(requested: list[str], baselines: Path) -> list[Runtime]:
    from wireconf.runtimes.python_impl import available_entry_points

    if requested:
        return [_requested(text) for text in requested]
    if (baselines / RUNTIMES_FILE).is_file():
        return listed_runtimes(baselines / RUNTIMES_FILE)
    return [Runtime(name, name) for name in available_entry_points() if name != "reference"]


def _requested(text: str) -> Runtime:
    """``--impl NAME=IMPL`` (the baseline is ``NAME.yaml``) or ``--impl IMPL``, whose baseline is named
    after it made one safe file name (``exec:node server.mjs`` → ``exec_node_server.mjs.yaml``), so that
    any runtime, shipped or not, gets a baseline of its own in ``--baselines``."""
    name, sep, impl = text.partition("=")
    if sep and name and path_part(name) == name:
        return Runtime(name, impl)
    return Runtime(path_part(text) or "runtime", text)


def _run(
    runtime: Runtime,
    cases: Path,
    baseline: Path | None,
    report: Path,
    select: str | None = None,
    apis: tuple[str, ...] = (),
) -> str | None:
    """Run the corpus (or one case file of it, ``select``: a case id; or the cases of ``apis``) against
    ``runtime``, refreshing ``baseline`` when given; ``None`` when it ran, else why it could not. A
    runtime with Python packages of its own and no Python chosen runs in its environment (made now, or
    reused: ``wireconf.envs``), as ``wireconf repro`` runs one case."""
    if runtime.spec is not None and not runtime.python and runtime.spec.ecosystem != NPM:
        from wireconf.envs.build import EnvBuildError, make

        try:
            runtime = runtime.in_env(make(runtime.spec).python)
        except EnvBuildError as error:
            return f"its environment could not be made: {error.message.splitlines()[0]}"
    impl = runtime.impl
    python = runtime.python or sys.executable
    if not Path(python).is_file():
        return f"no Python at {python} (the runtime's own environment has not been made)"
    command = [
        python,
        "-m",
        "pytest",
        str(cases),
        f"--impl={impl}",
        f"--report={report}",
        *([f"--baseline={baseline}", "--update-baseline"] if baseline is not None else []),
        *(["-k", select] if select else []),
        *(f"--api={api}" for api in apis),
        "-p",
        "no:cacheprovider",
        "-q",
        "--no-header",
    ]
    env = {**os.environ, **runtime.env}
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if done.returncode == 4 or not report.exists():  # usage error: the adapter cannot be loaded
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        return lines[-1].removeprefix("ERROR: ") if lines else f"pytest exited with {done.returncode}"
    return None


@dataclass(frozen=True)
class Job:
    """One run of the matrix: a runtime as pinned (``series`` None: judged against, and refreshing, its
    baseline), or one release of one of its series (judged on the series' cases, no baseline)."""

    runtime: Runtime
    series: Series | None = None
    version: str = ""

    @property
    def label(self) -> str:
        return (
            self.runtime.name
            if self.series is None
            else f"{self.runtime.name} {self.series.package} {self.version}"
        )

    @property
    def stem(self) -> str:
        """The file name of its report, without the suffix (unique within a matrix)."""
        return path_part(self.label.replace(" ", "__"))


@dataclass
class Outcome:
    """What a job left: its report (``None`` when it could not run, ``problem`` saying why)."""

    job: Job
    report: Path | None
    problem: str | None = None
    env: str = ""  # "made" or "reused" for a runtime with an environment of its own


def _jobs(runtimes: list[Runtime], releases: int) -> list[Job]:
    """Every runtime as pinned, then each release of each series (``releases`` newest each, resolved
    from the registry; a series that cannot be resolved is reported and left out)."""
    from wireconf.envs.releases import ReleasesError, last_releases

    jobs = [Job(runtime) for runtime in runtimes]
    for runtime in runtimes:
        if releases <= 0 or runtime.spec is None:
            continue
        for series in runtime.series:
            try:
                versions = last_releases(series, runtime.spec.ecosystem, releases)
            except ReleasesError as error:
                print(f"{runtime.name} {series.package}: releases not listed: {error}", file=sys.stderr)
                continue
            jobs += [Job(runtime, series, version) for version in versions]
    return jobs


def _execute(job: Job, cases: Path, baselines: Path, folder: Path) -> Outcome:
    """Make (or reuse) the job's environment, then run it; its report and a note of the job (``<stem>.json``,
    read back by ``--from-reports``) in ``folder``."""
    from wireconf.envs.build import EnvBuildError, environment_variables, make

    runtime, made = job.runtime, ""
    report = folder / f"{job.stem}.jsonl"
    report.unlink(missing_ok=True)
    problem: str | None = None
    if runtime.spec is not None and (job.series is not None or runtime.spec.ecosystem != NPM):
        spec = (
            runtime.spec if job.series is None else runtime.spec.with_release(job.series.package, job.version)
        )
        try:
            env = make(spec)
        except EnvBuildError as error:
            problem = f"its environment could not be made: {error.message.splitlines()[0]}"
        else:
            made = "reused" if env.reused else "made"
            runtime = replace(runtime, env={**runtime.env, **environment_variables(env)})
            runtime = runtime if spec.ecosystem == NPM else runtime.in_env(env.python)
    if problem is None:
        baseline = baselines / f"{runtime.name}.yaml" if job.series is None else None
        apis = job.series.apis if job.series is not None else ()
        problem = _run(runtime, cases, baseline, report, apis=apis)
    note = {
        "runtime": job.runtime.name,
        "package": job.series.package if job.series else "",
        "version": job.version,
        "apis": list(job.series.apis) if job.series else [],
        "problem": problem,
    }
    write_atomic(folder / f"{job.stem}.json", json.dumps(note, indent=1) + "\n")
    return Outcome(job, None if problem else report, problem, made)


def _describe(job: Job, outcome: Outcome) -> str:
    env = f" (environment {outcome.env})" if outcome.env else ""
    if outcome.report is None:
        return f"{job.label}: not run: {outcome.problem}{env}"
    from wireconf.reports.jsonl import read_records

    found = read_records([outcome.report])
    failing = sum(1 for r in found if r.status in ("failed", "error"))
    return f"{job.label}: {len(found)} cases, {failing} failing{env}"


def _read_outcomes(folders: list[Path]) -> list[tuple[dict[str, Any], Path | None]]:
    """The notes ``--reports`` folders hold, each with its report (``None`` for a job that did not run)."""
    found = []
    for folder in folders:
        for note_file in sorted(folder.glob("*.json")):
            note = json.loads(note_file.read_text(encoding="utf-8"))
            report = note_file.with_suffix(".jsonl")
            found.append((note, report if not note.get("problem") and report.is_file() else None))
    return found


def run(args: argparse.Namespace) -> int:
    from wireconf.corpus.installed import corpus_folder
    from wireconf.envs.matrix import default_jobs, parse_shard, run_parallel, shard

    cases = corpus_folder(args.corpus)
    baselines = Path(args.baselines)
    if args.from_reports:
        return _render(args, cases, _read_outcomes([Path(f) for f in args.from_reports]))
    runtimes = _runtimes(args.impl, baselines)
    if args.runtime:
        unknown = sorted(set(args.runtime) - {r.name for r in runtimes})
        if unknown:
            print(
                f"{COMMAND}: --runtime {', '.join(unknown)}: not among {[r.name for r in runtimes]}",
                file=sys.stderr,
            )
            return 2
        runtimes = [r for r in runtimes if r.name in args.runtime]
    jobs = _jobs(runtimes, args.releases)
    if args.shard:
        if not args.reports and not args.make_envs:
            print(
                f"{COMMAND}: --shard needs --reports DIR (render the shards with --from-reports)",
                file=sys.stderr,
            )
            return 2
        jobs = shard(jobs, *parse_shard(args.shard))
    if args.make_envs:
        return _make_envs(jobs, args.jobs or default_jobs())
    with tempfile.TemporaryDirectory(prefix="wireconf-findings-") as tmp:
        folder = Path(args.reports or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        run_parallel(
            jobs,
            lambda job: _execute(job, cases, baselines, folder),
            _describe,
            args.jobs or default_jobs(),
        )
        if args.shard:
            print(f"wrote the reports of {len(jobs)} job(s) to {folder}", file=sys.stderr)
            return 0
        return _render(args, cases, _read_outcomes([folder]))


def _make_envs(jobs: list[Job], parallel: int) -> int:
    """``--make-envs``: make (or reuse) the environment of each job, ``parallel`` at once, and stop; 1
    when one could not be made."""
    from wireconf.envs.build import EnvBuildError, make
    from wireconf.envs.matrix import run_parallel

    specs: dict[str, EnvSpec] = {}
    for job in jobs:
        spec = job.runtime.spec
        if spec is not None and (job.series is not None or spec.ecosystem != NPM):
            spec = spec if job.series is None else spec.with_release(job.series.package, job.version)
            specs.setdefault(spec.folder_name + spec.key(), spec)

    def one(spec: EnvSpec) -> str:
        try:
            env = make(spec)
        except EnvBuildError as error:
            return f"not made: {error.message}"
        return f"{'reused' if env.reused else 'made'} {env.folder}"

    done = run_parallel(
        list(specs.values()), one, lambda spec, result: f"{spec.name} {spec.release}: {result}", parallel
    )
    return 1 if any(result.startswith("not made") for result in done) else 0


def _render(args: argparse.Namespace, cases: Path, outcomes: list[tuple[dict[str, Any], Path | None]]) -> int:
    from wireconf.reports.baseline import load_baseline
    from wireconf.reports.findings import EXPLANATIONS, NotRun, render_findings
    from wireconf.reports.findings_proofs import load_impl_proofs
    from wireconf.reports.findings_releases import ReleaseRun, render_release_history
    from wireconf.reports.findings_rules import render_rules_view
    from wireconf.reports.jsonl import read_records
    from wireconf.reports.provider_schema import expected_rejections, render_rejections
    from wireconf.repro.build import reproducible

    corpus = open_corpus(cases)
    records, not_run, history = [], [], []
    for note, report in outcomes:
        found = read_records([report]) if report is not None else []
        if note.get("package"):
            apis = tuple(note.get("apis") or ())
            history.append(
                ReleaseRun(note["runtime"], note["package"], note["version"], apis, found, note["problem"])
            )
            continue
        if report is None:
            not_run.append(NotRun(note["runtime"], str(note["problem"])))
            continue
        written = load_baseline(Path(args.baselines) / f"{note['runtime']}.yaml", missing_ok=True)
        # the file's reason (a person's, or the update's), not the run's: the update has just
        # rewritten every kept reason no longer true of its failure (wireconf.reports.reason_check)
        for record in found:
            record.reason = written.expected.get(record.id, record.reason)
            record.extra[EXPLANATIONS] = written.explanations.get(record.id, {})
        records += found
    command = COMMAND + "".join(f" --impl {i}" for i in args.impl)
    size = sum(1 for _ in corpus.cases())
    shows = reproducible(corpus)
    proofs = {
        runtime: load_impl_proofs(Path(args.baselines), runtime)
        for runtime in sorted({record.impl for record in records})
    }
    text = render_findings(
        records,
        corpus.catalogue,
        not_run,
        command,
        size,
        [
            *render_rules_view(records, corpus.catalogue, shows, proofs),
            *_side_by_side(records, corpus),
            *render_rejections(expected_rejections(corpus)),
        ],
        corpus.catalogue.version,
        shows,
        proofs,
    )
    write_atomic(Path(args.out), text)
    print(f"wrote {args.out}", file=sys.stderr)
    from wireconf.reports.compliance import render_compliance

    page = Path(args.html) if args.html else Path(args.out).with_suffix(".html")
    write_atomic(
        page, render_compliance(records, corpus.catalogue, not_run, command, size, corpus.catalogue.version)
    )
    print(f"wrote {page}", file=sys.stderr)
    if history:
        per_series = Counter((run.runtime, run.package) for run in history)
        header = [
            "# The runtimes across their releases",
            "",
            f"Generated by `{command} --releases {max(per_series.values())}` from a corpus of {size} cases "
            f"(version {corpus.catalogue.version}), the releases as the registries listed them then; do not "
            "edit by hand. The pinned releases' findings are in [findings.md](findings.md).",
            "",
        ]
        write_atomic(Path(args.releases_out), "\n".join([*header, *render_release_history(history)]) + "\n")
        print(f"wrote {args.releases_out}", file=sys.stderr)
    return 0


def _side_by_side(records: list[Any], corpus: Any) -> list[str]:
    from wireconf.reports import side_by_side

    labels = {record.impl: record.runtime for record in records}
    lines: list[str] = []
    for left, right in SIDE_BY_SIDE:
        comparison = side_by_side.compare(records, left, right)
        if comparison is not None:
            lines += side_by_side.render(comparison, corpus.catalogue, labels)
    return lines


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "findings",
        help="run the real runtimes through the corpus, refresh their baselines, write docs/findings.md",
    )
    parser.add_argument(
        "--impl",
        action="append",
        default=[],
        help="a runtime, shipped or your own: an entry point, module:attribute or exec:COMMAND, as NAME=IMPL "
        "to name its baseline NAME.yaml in --baselines (else named after IMPL); repeatable (default: those "
        "DIR/runtimes.yaml lists, else every entry point except reference)",
    )
    add_corpus_argument(parser, "--cases")
    parser.add_argument(
        "--baselines", default="conformance", help="folder of baselines (default: conformance)"
    )
    parser.add_argument("--out", default="docs/findings.md", help="the page (default: docs/findings.md)")
    parser.add_argument(
        "--html",
        default=None,
        help="the compliance page, one static HTML page (default: --out with .html, docs/findings.html)",
    )
    parser.add_argument(
        "--releases",
        type=int,
        default=0,
        metavar="N",
        help="also judge the N newest releases of each package runtimes.yaml lists under a runtime's "
        "releases, each in an environment of its own, and write the history across them to "
        "--releases-out (default: 0)",
    )
    parser.add_argument(
        "--releases-out",
        default="docs/releases.md",
        metavar="FILE",
        help="the page of the history across releases, written when --releases judged some (default: "
        "docs/releases.md; the findings page stays that of the pinned releases)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="run N runtimes/releases at once (default: the CPU count)",
    )
    parser.add_argument(
        "--runtime",
        action="append",
        default=[],
        metavar="NAME",
        help="judge only this runtime of runtimes.yaml (repeatable): one CI machine per runtime",
    )
    parser.add_argument(
        "--shard",
        default=None,
        metavar="I/N",
        help="run only the I-th of N shares of the runtimes and releases, keeping their reports in --reports "
        "(no page: render every shard's reports with --from-reports)",
    )
    parser.add_argument(
        "--reports",
        default=None,
        metavar="DIR",
        help="keep each runtime's and release's report (and a note of it) in DIR",
    )
    parser.add_argument(
        "--from-reports",
        action="append",
        default=[],
        metavar="DIR",
        help="write the page from the reports earlier runs kept (--reports) instead of running; repeatable",
    )
    parser.add_argument(
        "--make-envs",
        action="store_true",
        help="only make (or reuse) the environments of the runtimes and releases selected, then stop",
    )
    parser.set_defaults(run=run)
