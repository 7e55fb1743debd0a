"""The ``wireconf`` command. Its subcommands are the modules of ``harness.commands``."""

from __future__ import annotations

import argparse
import importlib
import pkgutil

from harness import __version__, commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wireconf", description="Conformance corpus tools for LLM runtimes."
    )
    parser.add_argument("--version", action="version", version=f"wireconf {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"{commands.__name__}.{info.name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
