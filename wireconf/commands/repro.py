"""``wireconf repro --runtime NAME CASE_ID``: a standalone script reproducing a runtime's failing case
(``wireconf.repro``). The verdict is read from ``--report`` (a ``--report`` file of that runtime), else the
case is run now, as ``wireconf findings`` runs it (conformance/runtimes.yaml's environment)."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from wireconf.commands import Subparsers, add_corpus_argument

if TYPE_CHECKING:
    from wireconf.reports.jsonl import CaseRecord
    from wireconf.repro.verify import NodeRun

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


def _node_run(runtime: str) -> NodeRun:
    """How a JavaScript runtime's scripts run here: the AI SDK's beside its install's ``node_modules``,
    Prompty's given its built ``runtime/typescript`` folder (``wireconf.adapters.prompty_ts.locate``)."""
    from wireconf.repro.build import ReproError
    from wireconf.repro.verify import NodeRun

    if runtime == "prompty-ts":
        from wireconf.adapters.prompty_ts.locate import locate

        found = locate()
        if found.runtime is None:
            raise ReproError(f"prompty-ts's scripts need its build: {found.unavailable}")
        return NodeRun(flags=("--experimental-import-meta-resolve",), args=(str(found.runtime),))
    from wireconf.adapters.ai_sdk.build import installed

    root, why = installed()
    if root is None:
        raise ReproError(f"{runtime}'s scripts need its install: {why}")
    return NodeRun(modules=root / "node_modules")


def _verify(args: argparse.Namespace) -> int:
    """``--verify``: every root cause of the runtime's report that has a reproduction, run, and the
    proofs written (``wireconf.repro.verify``, ``wireconf.reports.findings_proofs``)."""
    from wireconf.cassettes.atomic import write_atomic
    from wireconf.corpus.installed import corpus_folder
    from wireconf.kinds.registry import open_corpus
    from wireconf.reports.baseline import load_baseline
    from wireconf.reports.findings import EXPLANATIONS, cause_explanation, difference_causes, repro_target
    from wireconf.reports.findings_proofs import Proof, dump_proofs, proofs_path
    from wireconf.reports.jsonl import read_records
    from wireconf.reports.matrix import build_matrix
    from wireconf.repro.build import ReproError, Selection, reproducible, reproduction
    from wireconf.repro.js_templates import JS_TEMPLATES
    from wireconf.repro.verify import Target, verify

    if not args.report:
        raise ReproError(
            "--verify reads the runtime's verdicts from --report (a report of `wireconf findings`)"
        )
    if args.output is None and any(v is not None for v in (args.case_id, args.rule, args.path)):
        raise ReproError(  # the runtime's proofs file would keep only the rows selected
            "--verify of selected rows (CASE_ID, --rule, --path) writes only their proofs: name the file"
            " with -o, so that the runtime's proofs (BASELINES/proofs) are kept"
        )
    cases = corpus_folder(args.corpus)
    corpus = open_corpus(cases)
    by_case = {c.id: c for c in corpus.cases()}
    written = load_baseline(Path(args.baselines) / f"{args.runtime}.yaml", missing_ok=True)
    records = list(read_records([Path(args.report)]))
    for record in records:  # the baseline's explanations, as the findings page reads them
        record.reason = written.expected.get(record.id, record.reason)
        record.extra[EXPLANATIONS] = written.explanations.get(record.id, {})
    shows = reproducible(corpus)
    cassettes = Path(args.cassettes) if args.cassettes else corpus.root.parent / "cassettes"
    targets, failed, version, impl = [], [], "", args.runtime
    seen: set[tuple[str, str | None, str]] = set()
    for rt in build_matrix(records).runtimes:
        by_id = {r.id: r for r in rt.failures}
        for cause in difference_causes(rt):
            target = repro_target(cause, by_id, shows)
            if target is None or (target[0].id, target[1], target[2]) in seen:
                continue  # two differences at one place (a key missing, another unexpected): one script
            seen.add((target[0].id, target[1], target[2]))
            record, rule, place = target
            if not _selected(args, record.id, rule, place):
                continue
            version, impl = record.version, record.impl
            command = f"{COMMAND} --runtime {args.runtime} {record.id} --rule {rule} --path '{place}'"
            try:
                script = reproduction(
                    record.impl,
                    record.version,
                    by_case[record.id],
                    record.differences or [],
                    corpus.catalogue,
                    Selection(rule, place),
                    command,
                    record.location or record.id,
                    cassettes,
                )
            except ReproError as error:  # linked, yet no script: recorded as not reproduced
                print(f"{record.id} {place}: {error.message}", file=sys.stderr)
                failed.append(Proof(record.id, rule or "", place, 2, False, "", {}))
                continue
            explanation = cause_explanation(cause, by_id)
            targets.append(Target(record.id, rule or "", place, script, explanation))
    node = _node_run(args.runtime) if args.runtime in JS_TEMPLATES else None
    proofs = [*failed, *verify(targets, lambda line: print(line, file=sys.stderr), node)]
    out = Path(args.output) if args.output else proofs_path(Path(args.baselines), args.runtime)
    write_atomic(out, dump_proofs(args.runtime, version, proofs, impl))
    proved = sum(
        1 for p, t in zip(proofs[len(failed) :], targets, strict=True) if p.proves(t.explanation or "")
    )
    shown = sum(1 for p in proofs if p.shown)
    print(
        f"wrote {out}: {len(proofs)} reproductions, {shown} show their deviation,"
        f" {proved} of {sum(1 for t in targets if t.explanation)} explanations proved",
        file=sys.stderr,
    )
    return 0 if shown == len(proofs) else 1  # a reproduction that does not fail as its finding says


def listed_environ(runtime: str, baselines: Path) -> dict[str, str]:
    """The variables conformance/runtimes.yaml gives ``runtime`` (luthien's source checkout) that the
    environment does not set already: without them its scripts would import nothing and every
    reproduction would count as not shown, which is the command's input problem, not the runtime's."""
    from wireconf.commands.findings import RUNTIMES_FILE, listed_runtimes

    path = baselines / RUNTIMES_FILE
    listed = listed_runtimes(path) if path.is_file() else []
    env = next((rt.env for rt in listed if rt.name == runtime), {})
    return {key: value for key, value in env.items() if key not in os.environ}


def _selected(args: argparse.Namespace, case_id: str, rule: str | None, place: str) -> bool:
    """Whether ``--verify`` runs this root cause: CASE_ID, ``--rule`` and ``--path``, where given, select
    (a few rows, not the whole report)."""
    wanted = ((args.case_id, case_id), (args.rule, rule), (args.path, place))
    return all(want is None or want == have for want, have in wanted)


def run(args: argparse.Namespace) -> int:
    from wireconf.corpus.installed import corpus_folder
    from wireconf.kinds.registry import open_corpus
    from wireconf.repro.build import ReproError, Selection, reproduction

    os.environ.update(listed_environ(args.runtime, Path(args.baselines)))
    if args.verify:
        return _verify(args)
    if args.case_id is None:
        raise ReproError("name the failing case (CASE_ID), or --verify every root cause of --report")
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
        Path(args.cassettes) if args.cassettes else corpus.root.parent / "cassettes",
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
    parser.add_argument("case_id", metavar="CASE_ID", nargs="?", help="the failing case")
    parser.add_argument(
        "--verify",
        action="store_true",
        help="run the reproduction of every root cause of --report (those of CASE_ID, --rule, --path where"
        " given), recording what each shows and whether the functions its explanation names ran (default"
        " -o: BASELINES/proofs/RUNTIME.yaml)",
    )
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
        "--cassettes", default=None, help="the cassettes folder (default: the one beside the corpus)"
    )
    parser.add_argument(
        "--baselines", default="conformance", help="folder of runtimes.yaml (default: conformance)"
    )
    parser.set_defaults(run=run)
