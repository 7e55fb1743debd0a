"""The ``wireconf`` command. Its subcommands are the modules of ``wireconf.commands``."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from wireconf import __version__, commands
from wireconf.core.errors import WireconfError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wireconf", description="Conformance corpus tools for LLM runtimes."
    )
    parser.add_argument(
        "--version", action="version", version=f"wireconf {__version__}", help="print wireconf's version"
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"{commands.__name__}.{info.name}").register(subparsers)
    return parser


EXIT_BROKEN_PIPE = 141  # what a shell reports for a writer killed by SIGPIPE (128 + 13)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (
        WireconfError
    ) as exc:  # a corpus, a file, an --impl the command was given: says where and what to do
        print(f"wireconf {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (`wireconf rules | head`): nothing more to say to it. Point stdout at
        # devnull so that the interpreter's own flush at exit does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    raise SystemExit(main())
