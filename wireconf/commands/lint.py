"""``wireconf lint``: check case files, ids, rule references, rule coverage and cassette references."""

from __future__ import annotations

import argparse
from pathlib import Path

from wireconf.commands import Subparsers, add_corpus_argument


def run(args: argparse.Namespace) -> int:
    from wireconf.corpus.installed import corpus_folder
    from wireconf.corpus.lint import lint
    from wireconf.kinds.registry import INPUT_FIELDS, open_corpus
    from wireconf.providers.contract import versions_line
    from wireconf.reports.provider_schema import expected_rejections

    corpus = open_corpus(corpus_folder(args.corpus))
    cassettes = Path(args.cassettes) if args.cassettes else None
    report = lint(corpus, cassettes, INPUT_FIELDS)
    for problem in report.problems:
        print(problem)
    rejected = expected_rejections(corpus)
    if rejected:  # findings about the spec, not problems of the corpus: listed, never failing
        print(
            f"{len(rejected)} expected request(s) the provider's pinned contract rejects ({versions_line()}):"
        )
        for item in rejected:
            rules = ", ".join(item.rules)
            print(f"  {item.case} [{item.api}; {rules}]")
            for found in item.problems:
                print(f"    {found.text}")
    print(report.summary())
    return 0 if report.ok else 1


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "lint", help="check case files, ids, rule references, coverage and cassettes"
    )
    add_corpus_argument(parser)
    parser.add_argument("--cassettes", help="cassette folder (default: cassettes beside the corpus)")
    parser.set_defaults(run=run)
