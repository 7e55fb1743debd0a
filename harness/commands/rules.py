"""``wireconf rules``: the rule catalogue, as a list or rendered for people (docs/rules.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> int:
    from harness.corpus.loader import Corpus
    from harness.corpus.rules_doc import render_markdown

    corpus = Corpus(Path(args.corpus))
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


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("rules", help="list the rule catalogue")
    parser.add_argument("corpus", nargs="?", default="cases")
    parser.add_argument(
        "--markdown", action="store_true", help="render the catalogue for people (docs/rules.md)"
    )
    parser.set_defaults(run=run)
