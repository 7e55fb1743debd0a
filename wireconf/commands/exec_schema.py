"""``wireconf exec-schema``: the JSON Schema of the exec protocol's messages (``--impl exec:COMMAND``)."""

from __future__ import annotations

import argparse

from wireconf.commands import Subparsers


def run(args: argparse.Namespace) -> int:
    from wireconf.exec_protocol.js_client import generated
    from wireconf.exec_protocol.schema import COMMITTED, PAGE, generate, markdown, page_with_tables, render

    schema = generate()
    text = render(schema)
    if args.markdown:
        print(markdown(schema), end="")
        return 0
    if args.write:
        COMMITTED.write_text(text, encoding="utf-8")
        print(f"wrote {COMMITTED}")
        for path, content in generated(schema).items():  # the JavaScript client's types and constants
            path.write_text(content, encoding="utf-8")
            print(f"wrote {path}")
        if PAGE.is_file():  # a checkout: the implementer's page's tables of fields
            PAGE.write_text(page_with_tables(PAGE.read_text(encoding="utf-8"), schema), encoding="utf-8")
            print(f"wrote {PAGE}")
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
        "the JavaScript client's protocol.d.ts and lib/protocol.js generated from it, and in a checkout "
        "the tables of docs/exec-protocol.md",
    )
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="print every message's fields as tables instead (docs/exec-protocol.md holds them)",
    )
    parser.set_defaults(run=run)
