"""``wireconf exec-client``: the JavaScript/TypeScript client of the exec protocol (``@wireconf/exec``),
as a tarball a runtime installs with ``npm install "$(wireconf exec-client --path)"``."""

from __future__ import annotations

import argparse
from pathlib import Path

from wireconf.commands import Subparsers


def run(args: argparse.Namespace) -> int:
    from wireconf.exec_protocol.js_client import PACKAGE, tarball

    if args.folder:
        print(PACKAGE)
        return 0
    print(tarball(Path(args.cache) if args.cache else None))
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "exec-client",
        help="print the path of the JavaScript/TypeScript exec client's npm tarball (@wireconf/exec), "
        'built into the cache: npm install "$(wireconf exec-client --path)"',
    )
    parser.add_argument(
        "--path",
        action="store_true",
        help="print the tarball's path (the default action; kept explicit for scripts)",
    )
    parser.add_argument("--folder", action="store_true", help="print the package's source folder instead")
    parser.add_argument(
        "--cache", help="cache folder (default: WIRECONF_CACHE_DIR, else .cache/ of this checkout)"
    )
    parser.set_defaults(run=run)
