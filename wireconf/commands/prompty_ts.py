"""``wireconf prompty-ts``: build Prompty's TypeScript runtime for ``--impl prompty-ts``, or say where
``--impl prompty-ts`` finds it (and why not)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wireconf.commands import Subparsers


def _build(args: argparse.Namespace) -> int:
    from wireconf.adapters.prompty_ts.build import BuildError, build

    try:
        built = build(Path(args.source), Path(args.cache) if args.cache else None)
    except BuildError as exc:
        print(f"wireconf prompty-ts build: {exc}", file=sys.stderr)
        return 1
    print(built)
    print(f"--impl prompty-ts uses it (or: export WIRECONF_PROMPTY_TS={built})", file=sys.stderr)
    return 0


def _status(args: argparse.Namespace) -> int:
    from wireconf.adapters.prompty_ts.locate import locate

    found = locate()
    if found.unavailable is not None:
        print(f"prompty-ts is unavailable: {found.unavailable}")
        return 1
    print(f"node {found.node}\nruntime {found.runtime}")
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "prompty-ts", help="build Prompty's TypeScript runtime for --impl prompty-ts, or show where it is"
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    building = actions.add_parser(
        "build",
        help="copy a runtime/typescript checkout (or a .tar.gz of one) into the cache and build it there "
        "(npm ci && npm run build); a build of the same source is reused",
    )
    building.add_argument(
        "source",
        help="a microsoft/prompty checkout's runtime/typescript folder, or a .tar.gz holding one "
        "(e.g. ../shared/third-party/prompty-75e4d0e5/typescript-runtime.tar.gz)",
    )
    building.add_argument(
        "--cache", help="cache folder (default: WIRECONF_CACHE_DIR, else .cache/ of this checkout)"
    )
    building.set_defaults(run=_build)
    status = actions.add_parser("status", help="where --impl prompty-ts finds Node.js and the runtime")
    status.set_defaults(run=_status)
