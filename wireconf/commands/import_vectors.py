"""``wireconf import-vectors``: Prompty's upstream conformance vectors (§7 wire, §8 process and
processStream) → cases, with their provenance (logic: ``wireconf.corpus.prompty_vectors``)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from wireconf.commands import Subparsers


def _commit(args: argparse.Namespace) -> str | None:
    """``--commit``, else the commit in the name of the vectors' folder (``prompty-<commit>``)."""
    if args.commit:
        return str(args.commit)
    match = re.fullmatch(r"prompty-([0-9a-f]{7,40})", Path(args.vectors).resolve().parent.name)
    return match.group(1) if match else None


def run(args: argparse.Namespace) -> int:
    from wireconf.corpus.prompty_vectors import VectorsError, import_vectors, write

    commit = _commit(args)
    if commit is None:
        print(
            "wireconf import-vectors: say which upstream commit the vectors are from (--commit)",
            file=sys.stderr,
        )
        return 2
    try:
        imported = import_vectors(Path(args.vectors), Path(args.corpus), commit)
    except VectorsError as exc:
        print(f"wireconf import-vectors: {exc}", file=sys.stderr)
        return 1
    for path in write(imported):
        print(f"wrote {path}")
    print(f"{imported.cases} vectors imported at {commit}, {len(imported.skipped)} not imported")
    for item in imported.skipped:
        print(f"  not imported: {item.name}: {item.reason}")
    if imported.without_rules:
        print(
            f"{len(imported.without_rules)} new case(s) cite no rule yet: write their `rules` (the loader "
            "refuses them until then): " + ", ".join(imported.without_rules),
            file=sys.stderr,
        )
        return 1
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "import-vectors", help="import Prompty's upstream conformance vectors (§7 / §8) as cases"
    )
    parser.add_argument("vectors", help="Prompty's vectors.json")
    parser.add_argument("--corpus", default="cases", help="the corpus root (default: cases)")
    parser.add_argument(
        "--commit", help="the upstream commit of the vectors (default: from a `prompty-<commit>` folder name)"
    )
    parser.set_defaults(run=run)
