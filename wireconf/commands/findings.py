"""``wireconf findings``: run every real runtime through the corpus, refresh its baseline and write the
findings page (``docs/findings.md``) and the compliance page beside it (``docs/findings.html``,
``wireconf.reports.compliance``). Re-run it whenever the corpus or a runtime changes."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wireconf.commands import Subparsers, add_corpus_argument
from wireconf.kinds.registry import open_corpus
from wireconf.report_text import path_part

COMMAND = "wireconf findings"
RUNTIMES_FILE = "runtimes.yaml"
SIDE_BY_SIDE = (("prompty", "prompty-ts"),)
"""Runtimes that implement one specification in two languages: the page compares each pair."""


@dataclass(frozen=True)
class Runtime:
    """One runtime to judge: the name of its baseline, its --impl, the environment it needs and the
    Python whose pytest runs it (``""``: this one; a runtime whose pins clash with the project's, such
    as LlamaIndex's, runs in-process in an environment of its own)."""

    name: str
    impl: str
    env: dict[str, str] = field(default_factory=dict)
    python: str = ""


def placeholders() -> dict[str, str]:
    """The values ``{third_party}``, ``{agentflow_python}`` and ``{llamaindex_python}`` stand for in
    conformance/runtimes.yaml.

    Relative values (the defaults: beside and inside the checkout the command runs from) are made
    absolute here, when the file is read: a run that later changes directory (pytester does) must
    still find the sources instead of skipping the runtime as "not here"."""
    third_party = os.environ.get("WIRECONF_THIRD_PARTY") or str(Path("..", "shared", "third-party"))
    agentflow = os.environ.get("WIRECONF_AGENTFLOW_PYTHON") or str(Path(".venv-agentflow", "bin", "python"))
    llamaindex = os.environ.get("WIRECONF_LLAMAINDEX_PYTHON") or str(
        Path(".venv-llamaindex", "bin", "python")
    )
    return {
        "third_party": str(Path(third_party).absolute()),
        "agentflow_python": str(Path(agentflow).absolute()),
        "llamaindex_python": str(Path(llamaindex).absolute()),
    }


def listed_runtimes(path: Path) -> list[Runtime]:
    """The runtimes ``path`` (conformance/runtimes.yaml) lists, with placeholders filled in."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    values = placeholders()
    out = []
    for name, entry in (data.get("runtimes") or {}).items():
        env = {str(k): str(v).format(**values) for k, v in (entry.get("env") or {}).items()}
        python = str(entry.get("python") or "").format(**values)
        out.append(Runtime(str(name), str(entry["impl"]).format(**values), env, python))
    return out


def _runtimes(requested: list[str], baselines: Path) -> list[Runtime]:
    from wireconf.python_impl import available_entry_points

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
    runtime: Runtime, cases: Path, baseline: Path | None, report: Path, select: str | None = None
) -> str | None:
    """Run the corpus (or one case file of it, ``select``: a case id) against ``runtime``, refreshing
    ``baseline`` when given; ``None`` when it ran, else why it could not."""
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


def run(args: argparse.Namespace) -> int:
    from wireconf.corpus.installed import corpus_folder
    from wireconf.reports.baseline import load_baseline
    from wireconf.reports.findings import EXPLANATIONS, NotRun, render_findings
    from wireconf.reports.findings_rules import render_rules_view
    from wireconf.reports.jsonl import read_records
    from wireconf.reports.provider_schema import expected_rejections, render_rejections
    from wireconf.repro.build import reproducible

    cases = corpus_folder(args.corpus)
    corpus = open_corpus(cases)
    records, not_run = [], []
    with tempfile.TemporaryDirectory(prefix="wireconf-findings-") as tmp:
        for runtime in _runtimes(args.impl, Path(args.baselines)):
            impl = runtime.name
            baseline = Path(args.baselines) / f"{impl}.yaml"
            report = Path(tmp) / f"{impl}.jsonl"
            problem = _run(runtime, cases, baseline, report)
            if problem is not None:
                print(f"{impl}: not run: {problem}", file=sys.stderr)
                not_run.append(NotRun(impl, problem))
                continue
            found = read_records([report])
            written = load_baseline(baseline, missing_ok=True)
            # the file's reason (a person's, or the update's), not the run's: the update has just
            # rewritten every kept reason no longer true of its failure (wireconf.reports.reason_check)
            for record in found:
                record.reason = written.expected.get(record.id, record.reason)
                record.extra[EXPLANATIONS] = written.explanations.get(record.id, {})
            records += found
            failing = sum(1 for r in found if r.status in ("failed", "error"))
            print(f"{impl}: {len(found)} cases, {failing} failing; baseline {baseline}", file=sys.stderr)
    command = COMMAND + "".join(f" --impl {i}" for i in args.impl)
    size = sum(1 for _ in corpus.cases())
    text = render_findings(
        records,
        corpus.catalogue,
        not_run,
        command,
        size,
        [
            *render_rules_view(records, corpus.catalogue),
            *_side_by_side(records, corpus),
            *render_rejections(expected_rejections(corpus)),
        ],
        corpus.catalogue.version,
        reproducible(corpus),
    )
    from wireconf.cassettes.atomic import write_atomic

    write_atomic(Path(args.out), text)
    print(f"wrote {args.out}", file=sys.stderr)
    from wireconf.reports.compliance import render_compliance

    page = Path(args.html) if args.html else Path(args.out).with_suffix(".html")
    write_atomic(
        page, render_compliance(records, corpus.catalogue, not_run, command, size, corpus.catalogue.version)
    )
    print(f"wrote {page}", file=sys.stderr)
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
    parser.set_defaults(run=run)
