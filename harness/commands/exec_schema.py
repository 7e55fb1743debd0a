"""``wireconf exec-schema``: the JSON Schema of the exec protocol's messages (``--impl exec:COMMAND``)."""

from __future__ import annotations

import argparse
import json
from typing import Any


def run(args: argparse.Namespace) -> int:
    from harness.exec_protocol.messages import schema

    print(json.dumps(schema(), indent=2))
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "exec-schema", help="print the JSON Schema of the exec: protocol's messages (out-of-process runtimes)"
    )
    parser.set_defaults(run=run)
