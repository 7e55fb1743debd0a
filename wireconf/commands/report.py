"""``wireconf report RUN.jsonl...``: merge ``--report`` files (xdist, shards, several runtimes) and
render them as Markdown, JUnit XML, shields badge JSON and a static HTML page."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from wireconf.commands import Subparsers, add_corpus_argument

if TYPE_CHECKING:
    from wireconf.corpus.rules import Catalogue


def _write(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        return
    from wireconf.cassettes.atomic import write_atomic

    write_atomic(Path(path), text)


def catalogue_for_reports(corpus: str | None) -> Catalogue | None:
    """The rule catalogue that names the rules of the by-rule view: ``corpus``'s (a path that is not a
    corpus is an error, ``CorpusNotFound``), else the installed corpus's, else None (ids only)."""
    from wireconf.corpus.installed import CorpusNotFound, corpus_folder
    from wireconf.corpus.rules import RULES_FILE, load_catalogue

    try:
        folder = corpus_folder(corpus)
    except CorpusNotFound:
        if corpus is not None:
            raise
        return None
    return load_catalogue(folder / RULES_FILE)


def run(args: argparse.Namespace) -> int:
    from wireconf.core.report_text import path_part
    from wireconf.reports.badge import render_badge
    from wireconf.reports.html import render_html
    from wireconf.reports.jsonl import ReportError, read_records
    from wireconf.reports.junit import render_junit
    from wireconf.reports.markdown import render_markdown
    from wireconf.reports.matrix import build_matrix

    try:
        records = read_records(Path(p) for p in args.reports)
    except ReportError as exc:
        print(f"wireconf report: {exc}", file=sys.stderr)
        return 2
    if not records:
        print("wireconf report: the report files hold no case", file=sys.stderr)
        return 2
    matrix = build_matrix(records)
    if args.badge and len(matrix.runtimes) > 1 and "{impl}" not in args.badge:
        print("wireconf report: several runtimes: --badge needs {impl} in its path", file=sys.stderr)
        return 2
    wrote = False
    if args.junit:
        _write(args.junit, render_junit(matrix))
        wrote = True
    if args.html:
        _write(args.html, render_html(matrix, args.title, catalogue_for_reports(args.corpus)))
        wrote = True
    if args.badge:
        for rt in matrix.runtimes:  # a runtime's name is one part of the path, never a way out of it
            _write(args.badge.replace("{impl}", path_part(rt.impl) or "runtime"), render_badge(rt))
        wrote = True
    if args.markdown or not wrote:
        _write(args.markdown or "-", render_markdown(matrix))
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "report",
        help="render --report files as Markdown, JUnit XML, a shields badge and an HTML page",
        description="Merge one or more --report files (from xdist runs, --shard runs on several machines, "
        "several runtimes) and render them. With no output option, Markdown goes to stdout.",
    )
    parser.add_argument("reports", nargs="+", metavar="RUN.jsonl", help="files written by pytest --report")
    parser.add_argument(
        "--markdown", metavar="PATH", help="Markdown (e.g. $GITHUB_STEP_SUMMARY; - for stdout)"
    )
    parser.add_argument("--junit", metavar="PATH", help="JUnit XML")
    parser.add_argument(
        "--badge", metavar="PATH", help="shields endpoint JSON; {impl} in the path for several"
    )
    parser.add_argument("--html", metavar="PATH", help="a static HTML page")
    parser.add_argument("--title", default="wireconf conformance report", help="title of the HTML page")
    add_corpus_argument(parser, "--cases")
    parser.set_defaults(run=run)
