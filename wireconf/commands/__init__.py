"""The ``wireconf`` subcommands: one module each, found by ``wireconf.cli``.

A command module has ``register(subparsers)``, which adds its parser and sets ``run`` (a function of
the parsed arguments returning the exit status). Every argument has a help text (a test walks them).
"""

from __future__ import annotations

import argparse
from typing import TypeAlias

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What ``add_subparsers()`` returns, given to each ``register`` (argparse keeps the class private)."""

CORPUS_HELP = "the corpus folder, the one that holds rules.yaml (default: the corpus installed with wireconf)"


def add_corpus_argument(parser: argparse.ArgumentParser, *flags: str) -> None:
    """The corpus a command reads: positional and optional, or under ``flags`` (e.g. ``--cases``).
    ``None`` stands for the installed corpus (``wireconf.corpus.installed.corpus_folder``)."""
    if flags:
        parser.add_argument(*flags, dest="corpus", default=None, metavar="DIR", help=CORPUS_HELP)
    else:
        parser.add_argument("corpus", nargs="?", default=None, metavar="CORPUS", help=CORPUS_HELP)
