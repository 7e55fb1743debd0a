"""``wireconf exec-schema``: the JSON Schema of the exec protocol's messages (``--impl exec:COMMAND``)."""

from __future__ import annotations

import argparse

from wireconf.commands import Subparsers


def run(args: argparse.Namespace) -> int:
    from wireconf.exec_protocol.js_client import generated
    from wireconf.exec_protocol.schema import COMMITTED, generate, render

    schema = generate()
    text = render(schema)
    if args.write:
        COMMITTED.write_text(text, encoding="utf-8")
        print(f"wrote {COMMITTED}")
        for path, content in generated(schema).items():  # the JavaScript client's types and constants
            path.write_text(content, encoding="utf-8")
            print(f"wrote {path}")
    else:
        print(text, end="")
    return 0


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "exec-schema", help="print the JSON Schema of the exec: protocol's messages (out-of-process runtimes)"
    )
    parser.add_argument(
        "--write",
        action="store_true",
        help="regenerate the schema.json shipped in the package (for the built-in apis and kinds), and "
        "the JavaScript client's protocol.d.ts and lib/protocol.js generated from it",
    )
    parser.set_defaults(run=run)
