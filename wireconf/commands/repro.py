"""``wireconf repro --runtime NAME CASE_ID``: a standalone script reproducing a runtime's failing case
(``wireconf.repro``). The verdict is read from ``--report`` (a ``--report`` file of that runtime), else the
case is run now, as ``wireconf findings`` runs it (conformance/runtimes.yaml's environment)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from wireconf.commands import Subparsers, add_corpus_argument

if TYPE_CHECKING:
    from wireconf.reports.jsonl import CaseRecord

COMMAND = "wireconf repro"


def _verdict(args: argparse.Namespace, cases: Path) -> CaseRecord:
    """The runtime's record of the case: from ``--report``, else from a run of that one case."""
    from wireconf.commands.findings import RUNTIMES_FILE, Runtime, _run, listed_runtimes
    from wireconf.reports.jsonl import read_records
    from wireconf.repro.build import ReproError

    if args.report:
        records = [r for r in read_records([Path(args.report)]) if r.id == args.case_id]
    else:
        listed = Path(args.baselines) / RUNTIMES_FILE
        known = {r.name: r for r in listed_runtimes(listed)} if listed.is_file() else {}
        runtime = known.get(args.runtime, Runtime(args.runtime, args.runtime))
        with tempfile.TemporaryDirectory(prefix="wireconf-repro-") as tmp:
            report = Path(tmp) / "case.jsonl"
            problem = _run(runtime, cases, None, report, select=args.case_id)
            if problem is not None:
                raise ReproError(f"{args.runtime} could not run {args.case_id}: {problem}")
            records = [r for r in read_records([report]) if r.id == args.case_id]
    if not records:
        raise ReproError(f"no verdict of {args.runtime} on {args.case_id} (is the case id right?)")
    return records[0]


def run(args: argparse.Namespace) -> int:
    from wireconf.corpus.installed import corpus_folder
    from wireconf.kinds.registry import open_corpus
    from wireconf.repro.build import ReproError, Selection, reproduction

    cases = corpus_folder(args.corpus)
    corpus = open_corpus(cases)
    case = next((c for c in corpus.cases() if c.id == args.case_id), None)
    if case is None:
        raise ReproError(f"no case {args.case_id} in {cases}", case=args.case_id)
    record = _verdict(args, case.path)
    if record.status != "failed":
        raise ReproError(f"{args.runtime} does not fail {args.case_id} (its verdict: {record.status})")
    selection = Selection(args.rule, args.path)
    command = f"{COMMAND} --runtime {args.runtime} {args.case_id}"
    command += "".join(
        f" {flag} '{value}'" for flag, value in (("--rule", args.rule), ("--path", args.path)) if value
    )
    text = reproduction(
        record.impl,
        record.version,
        case,
        record.differences or [],
        corpus.catalogue,
        selection,
        command,
        record.location or args.case_id,
    )
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        from wireconf.cassettes.atomic import write_atomic

        write_atomic(Path(args.output), text)
        print(f"wrote {args.output}", file=sys.stderr)
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "repro",
        help="write a standalone script (the runtime and its SDK only) reproducing a runtime's failing case",
    )
    parser.add_argument("case_id", metavar="CASE_ID", help="the failing case")
    parser.add_argument(
        "--runtime",
        required=True,
        help="the runtime: a name of conformance/runtimes.yaml (its environment), or an --impl",
    )
    parser.add_argument("-o", "--output", default=None, help="the script's file (default: standard output)")
    parser.add_argument("--rule", default=None, help="check only the differences that break this rule")
    parser.add_argument(
        "--path",
        default=None,
        help="only the differences at this place (a root cause: $.contents[*].parts[*].functionCall.id)",
    )
    parser.add_argument(
        "--report", default=None, help="read the verdict from this --report file instead of running the case"
    )
    add_corpus_argument(parser, "--cases")
    parser.add_argument(
        "--baselines", default="conformance", help="folder of runtimes.yaml (default: conformance)"
    )
    parser.set_defaults(run=run)
