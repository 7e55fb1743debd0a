"""``wireconf schema``: the JSON Schema of a case file, for editors and other tools."""

from __future__ import annotations

import argparse
import json

from wireconf.commands import Subparsers


def run(args: argparse.Namespace) -> int:
    from wireconf.kinds.registry import case_file_json_schema

    print(json.dumps(case_file_json_schema(), indent=2))
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser("schema", help="print the JSON Schema of a case file")
    parser.set_defaults(run=run)
