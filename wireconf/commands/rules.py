"""``wireconf rules``: the rule catalogue, as a list or rendered for people (docs/rules.md)."""

from __future__ import annotations

import argparse
import sys

from wireconf.commands import Subparsers, add_corpus_argument
from wireconf.kinds.registry import open_corpus


def run(args: argparse.Namespace) -> int:
    from wireconf.corpus.installed import corpus_folder
    from wireconf.corpus.rules_doc import render_markdown

    corpus = open_corpus(corpus_folder(args.corpus))
    if corpus.catalogue.problems:
        for problem in corpus.catalogue.problems:
            print(problem, file=sys.stderr)
        return 1
    if args.markdown:
        sys.stdout.write(render_markdown(corpus))
    else:
        for rule in corpus.catalogue.rules.values():
            print(f"{rule.id}  [{rule.level}]  {rule.statement}")
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("rules", help="list the rule catalogue")
    add_corpus_argument(parser)
    parser.add_argument(
        "--markdown", action="store_true", help="render the catalogue for people (docs/rules.md)"
    )
    parser.set_defaults(run=run)
