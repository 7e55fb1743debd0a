"""``wireconf import``: recordings of real provider traffic → the project's cassettes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> int:
    from harness.importer import ImportError_, import_real_traffic

    try:
        done = import_real_traffic([Path(p) for p in args.files], Path(args.out))
    except ImportError_ as exc:
        print(f"wireconf import: {exc}", file=sys.stderr)
        return 1
    for item in done:
        print(f"{item.source} -> {item.written}")
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("import", help="turn real-traffic recordings into cassettes")
    parser.add_argument("files", nargs="+", help="real-traffic JSON files")
    parser.add_argument("--out", default="cassettes", help="cassette folder (default: cassettes)")
    parser.set_defaults(run=run)
