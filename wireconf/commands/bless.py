"""``wireconf bless``: write the reference implementation's output into cases' expectations."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wireconf.commands import Subparsers


def run(args: argparse.Namespace) -> int:
    from wireconf.corpus.installed import corpus_folder
    from wireconf.maintenance.bless import BlessError, bless

    try:
        done = bless(
            corpus_folder(args.corpus), args.case_ids, Path(args.cassettes) if args.cassettes else None
        )
    except BlessError as exc:
        print(f"wireconf bless: {exc}; nothing was written", file=sys.stderr)
        return 1
    for item in done:
        if item.keys:
            print(f"blessed {item.case_id}: {', '.join(item.keys)} in {item.path}")
        else:
            print(f"unchanged {item.case_id}: it already expects what the reference does")
    print("review the change against the rules before committing it (git diff)")
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "bless", help="write the reference implementation's output into cases' expectations, for review"
    )
    parser.add_argument("case_ids", nargs="+", metavar="CASE_ID", help="ids of the cases to bless")
    parser.add_argument(
        "--corpus",
        default="cases",
        metavar="DIR",
        help="the corpus folder to write into, the one that holds rules.yaml (default: cases, a checkout's)",
    )
    parser.add_argument("--cassettes", help="cassette folder (default: cassettes beside the corpus)")
    parser.set_defaults(run=run)
