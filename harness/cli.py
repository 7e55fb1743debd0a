"""The ``wireconf`` command: ``schema``, ``lint``, ``import``, ``rules``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness import __version__


def _schema(args: argparse.Namespace) -> int:
    from harness.case_model import case_file_json_schema

    print(json.dumps(case_file_json_schema(), indent=2))
    return 0


def _lint(args: argparse.Namespace) -> int:
    from harness.lint import lint

    report = lint(Path(args.corpus), Path(args.cassettes) if args.cassettes else None)
    for problem in report.problems:
        print(problem)
    print(report.summary())
    return 0 if report.ok else 1


def _import(args: argparse.Namespace) -> int:
    from harness.importer import ImportError_, import_real_traffic

    try:
        done = import_real_traffic([Path(p) for p in args.files], Path(args.out))
    except ImportError_ as exc:
        print(f"wireconf import: {exc}", file=sys.stderr)
        return 1
    for item in done:
        print(f"{item.source} -> {item.written}")
    return 0


def _rules(args: argparse.Namespace) -> int:
    from harness.corpus import Corpus
    from harness.rule_catalogue import load_catalogue
    from harness.rules_doc import render_markdown

    corpus = Corpus(Path(args.corpus))
    if corpus.catalogue.problems:
        for problem in corpus.catalogue.problems:
            print(problem, file=sys.stderr)
        return 1
    text = (
        render_markdown(corpus)
        if args.markdown
        else "\n".join(
            f"{r.id}  [{r.level}]  {r.statement}"
            for r in load_catalogue(corpus.catalogue.path).rules.values()
        )
    )
    print(text, end="" if text.endswith("\n") else "\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wireconf", description="Conformance corpus tools for LLM runtimes."
    )
    parser.add_argument("--version", action="version", version=f"wireconf {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("schema", help="print the JSON Schema of a case file")
    p.set_defaults(run=_schema)

    p = sub.add_parser("lint", help="check case files, ids, rule references, coverage and cassettes")
    p.add_argument("corpus", nargs="?", default="cases", help="the corpus folder (holds rules.yaml)")
    p.add_argument("--cassettes", help="cassette folder (default: cassettes beside the corpus)")
    p.set_defaults(run=_lint)

    p = sub.add_parser("import", help="turn real-traffic recordings into cassettes")
    p.add_argument("files", nargs="+", help="real-traffic JSON files")
    p.add_argument("--out", default="cassettes", help="cassette folder (default: cassettes)")
    p.set_defaults(run=_import)

    p = sub.add_parser("rules", help="list the rule catalogue")
    p.add_argument("corpus", nargs="?", default="cases")
    p.add_argument("--markdown", action="store_true", help="render the catalogue for people (docs/rules.md)")
    p.set_defaults(run=_rules)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
