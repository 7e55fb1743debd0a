"""``wireconf exec-client``: the JavaScript/TypeScript client of the exec protocol (``@wireconf/exec``),
as a tarball a runtime vendors (``--pack vendor``, then ``npm install ./vendor/wireconf-exec-<version>.tgz``:
a relative ``file:`` path in package.json and the tarball's ``integrity`` in the lockfile, so the
project installs the same bytes on any machine) or a script installs from the cache (``--path``)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from wireconf.commands import Subparsers


def run(args: argparse.Namespace) -> int:
    from wireconf.exec_protocol.js_client import PACKAGE, pack, tarball

    if args.folder:
        print(PACKAGE)
        return 0
    if args.pack:
        written = pack(Path(args.pack))
        relative = os.path.relpath(written)
        shown = relative if relative.startswith((".", os.sep)) else f".{os.sep}{relative}"
        print(f"wrote {written}\ninstall it (from this folder): npm install {shown}")
        return 0
    print(tarball(Path(args.cache) if args.cache else None))
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "exec-client",
        help="the JavaScript/TypeScript exec client's npm tarball (@wireconf/exec): --pack vendor writes it "
        "into a project (npm install ./vendor/wireconf-exec-<version>.tgz); by default its path in the cache",
    )
    parser.add_argument(
        "--path",
        action="store_true",
        help="print the tarball's path (the default action; kept explicit for scripts)",
    )
    parser.add_argument("--folder", action="store_true", help="print the package's source folder instead")
    parser.add_argument(
        "--pack",
        metavar="DIR",
        help="write the tarball into DIR (a project's vendor/ folder, say) and print the `npm install` "
        "line: package.json then holds a relative file: path, the lockfile its integrity",
    )
    parser.add_argument(
        "--cache", help="cache folder (default: WIRECONF_CACHE_DIR, else .cache/ of this checkout)"
    )
    parser.set_defaults(run=run)
