"""``wireconf ai-sdk``: install the Vercel AI SDK for ``--impl ai-sdk`` (pinned versions, from the npm
registry, into the cache), or say where ``--impl ai-sdk`` finds it (and why not)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from wireconf.commands import Subparsers


def _build(args: argparse.Namespace) -> int:
    from wireconf.adapters.ai_sdk.build import BuildError, build

    try:
        built = build(Path(args.cache) if args.cache else None)
    except BuildError as exc:
        print(f"wireconf ai-sdk build: {exc}", file=sys.stderr)
        return 1
    print(built)
    return 0


def _status(args: argparse.Namespace) -> int:
    from wireconf.adapters.ai_sdk import Unavailable, adapter

    found = adapter()
    if isinstance(found, Unavailable):
        print(f"ai-sdk is unavailable: {found.unavailable}")
        return 1
    print(f"{found.name} {found.version}: {found.command}")
    found.close()
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "ai-sdk",
        help="install the Vercel AI SDK for --impl ai-sdk (npm ci of its pinned lockfile), or show it",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    building = actions.add_parser(
        "build", help="install the pinned AI SDK from the npm registry into the cache (reused when unchanged)"
    )
    building.add_argument(
        "--cache", help="cache folder (default: WIRECONF_CACHE_DIR, else .cache/ of this checkout)"
    )
    building.set_defaults(run=_build)
    status = actions.add_parser(
        "status", help="start --impl ai-sdk and say its version, or why it cannot run"
    )
    status.set_defaults(run=_status)
