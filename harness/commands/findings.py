"""``wireconf findings``: run every real runtime through the corpus, refresh its baseline and write the
findings page (``docs/findings.md``). Re-run it whenever the corpus or a runtime changes."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from harness.commands import add_corpus_argument

COMMAND = "wireconf findings"


def _runtimes(requested: list[str]) -> list[str]:
    from harness.impl_loader import available_entry_points

    return requested or [name for name in available_entry_points() if name != "reference"]


def _run(impl: str, cases: Path, baseline: Path, report: Path) -> str | None:
    """Run the corpus against ``impl``; ``None`` when it ran, else why it could not."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(cases),
        f"--impl={impl}",
        f"--report={report}",
        f"--baseline={baseline}",
        "--update-baseline",
        "-p",
        "no:cacheprovider",
        "-q",
        "--no-header",
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode == 4 or not report.exists():  # usage error: the adapter cannot be loaded
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        return lines[-1].removeprefix("ERROR: ") if lines else f"pytest exited with {done.returncode}"
    return None


def run(args: argparse.Namespace) -> int:
    from harness.corpus.installed import corpus_folder
    from harness.corpus.loader import Corpus
    from harness.reports.baseline import load_baseline
    from harness.reports.findings import NotRun, render_findings
    from harness.reports.jsonl import read_records

    cases = corpus_folder(args.corpus)
    corpus = Corpus(cases)
    records, not_run = [], []
    with tempfile.TemporaryDirectory(prefix="wireconf-findings-") as tmp:
        for impl in _runtimes(args.impl):
            baseline = Path(args.baselines) / f"{impl}.yaml"
            report = Path(tmp) / f"{impl}.jsonl"
            problem = _run(impl, cases, baseline, report)
            if problem is not None:
                print(f"{impl}: not run: {problem}", file=sys.stderr)
                not_run.append(NotRun(impl, problem))
                continue
            found = read_records([report])
            reasons = load_baseline(baseline, missing_ok=True).expected
            for record in found:  # the file's reason (written by a person or by the update), not the run's
                record.reason = reasons.get(record.id, record.reason)
            records += found
            failing = sum(1 for r in found if r.status in ("failed", "error"))
            print(f"{impl}: {len(found)} cases, {failing} failing; baseline {baseline}", file=sys.stderr)
    command = COMMAND + "".join(f" --impl {i}" for i in args.impl)
    size = sum(1 for _ in corpus.cases())
    text = render_findings(records, corpus.catalogue, not_run, command, size, corpus.catalogue.version)
    from harness.cassettes.atomic import write_atomic

    write_atomic(Path(args.out), text)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "findings",
        help="run the real runtimes through the corpus, refresh their baselines, write docs/findings.md",
    )
    parser.add_argument(
        "--impl",
        action="append",
        default=[],
        help="a runtime (entry point, module:attribute or exec:COMMAND); repeatable "
        "(default: every wireconf.adapters entry point except reference)",
    )
    add_corpus_argument(parser, "--cases")
    parser.add_argument(
        "--baselines", default="conformance", help="folder of baselines (default: conformance)"
    )
    parser.add_argument("--out", default="docs/findings.md", help="the page (default: docs/findings.md)")
    parser.set_defaults(run=run)
