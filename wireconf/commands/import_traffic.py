"""``wireconf import``: recordings of real provider traffic (real-traffic JSON, vcrpy / pytest-recording
or Ruby VCR cassettes) → the project's cassettes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wireconf.commands import Subparsers


def run(args: argparse.Namespace) -> int:
    from wireconf.cassettes.importer import CassetteImportError, import_files
    from wireconf.cassettes.writer import SecretInCassette

    try:
        done = import_files(
            [Path(p) for p in args.files],
            Path(args.out),
            source_repo=args.source_repo,
            source_commit=args.source_commit,
        )
    except (CassetteImportError, SecretInCassette) as exc:
        print(f"wireconf import: {exc}", file=sys.stderr)
        return 1
    for item in done:
        print(f"{item.source} -> {item.written}")
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "import", help="turn real-traffic recordings and vcrpy / pytest-recording cassettes into cassettes"
    )
    parser.add_argument(
        "files",
        nargs="+",
        help="real-traffic JSON files, vcrpy / pytest-recording (YAML or JSON) or Ruby VCR cassettes",
    )
    parser.add_argument("--out", default="cassettes", help="cassette folder (default: cassettes)")
    parser.add_argument(
        "--source-repo", help="where the cassettes were published (default: the origin of their git checkout)"
    )
    parser.add_argument(
        "--source-commit", help="the commit they were published at (default: the checkout's HEAD)"
    )
    parser.set_defaults(run=run)
