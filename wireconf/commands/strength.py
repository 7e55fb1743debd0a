"""``wireconf strength``: run each rule's mutant of the reference through the rule's cases."""

from __future__ import annotations

import argparse

from wireconf.commands import Subparsers, add_corpus_argument
from wireconf.judging.profile import PROFILES
from wireconf.pytest_plugin.timeout import timeout_seconds


def run(args: argparse.Namespace) -> int:
    from wireconf.corpus.installed import corpus_folder
    from wireconf.maintenance.strength import MutantResult, strength

    def progress(result: MutantResult) -> None:
        if args.verbose or result.status != "killed":
            print(f"{result.status:12} {result.rule}  {result.detail}".rstrip(), flush=True)

    report = strength(
        corpus_folder(args.corpus), args.rule or None, args.jobs, args.case_timeout, progress, args.profile
    )
    for rule_id in report.missing:
        print(f"{'no mutant':12} {rule_id}")
    print(report.summary())
    return 0 if report.ok else 1


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "strength", help="check that each MUST rule's mutant is caught by its cases"
    )
    add_corpus_argument(parser)
    parser.add_argument("--rule", action="append", help="only this rule (repeatable)")
    parser.add_argument("--jobs", type=int, default=None, help="mutants run at once (default: CPU count)")
    parser.add_argument(
        "--case-timeout",
        type=timeout_seconds,
        default=5.0,
        metavar="SECONDS",
        help="time limit per case while a mutant runs, as pytest's --case-timeout (default: 5)",
    )
    parser.add_argument(
        "--profile",
        choices=tuple(PROFILES),
        default="full",
        help="judge the mutants' cases under this profile, as pytest's --profile; under interop a mutant "
        "whose cases differ only in what the provider reads alike is counted apart as equivalent",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="also list the killed mutants")
    parser.set_defaults(run=run)
