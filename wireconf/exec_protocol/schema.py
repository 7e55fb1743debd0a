"""The JSON Schema of the exec protocol's messages, generated from their records (``records/``).

The records are the single source: each message's text is its record's docstring, each field's its
description, the rules by protocol version are ``Hello``'s. The apis, kinds, methods and categories
come from the registries the records read at import, so a new api or kind is in the schema without an
edit. ``schema.json`` beside this module is the schema for the built-in records, committed for
runtimes in other languages to read: edit a record, then ``wireconf exec-schema --write`` (a test checks
the committed file is current). ``wireconf exec-schema`` prints the schema of the records installed here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, models_json_schema
from pydantic_core import core_schema

from wireconf.exec_protocol import PROTOCOL_VERSION, SUPPORT_POLICY
from wireconf.exec_protocol.messages import SCHEMA_FILE
from wireconf.exec_protocol.records import HARNESS_RECORDS, RUNTIME_RECORDS, Recorded, RecordedHead
from wireconf.exec_protocol.records.base import ID_DESCRIPTION, Record
from wireconf.exec_protocol.records.names import capability_pattern

COMMITTED = Path(__file__).with_name(SCHEMA_FILE)
PAGE = Path(__file__).resolve().parents[2] / "docs" / "exec-protocol.md"
"""The implementer's page, whose field tables ``markdown`` renders (in a checkout; not installed)."""
_ORDER = [
    "Hello",
    "Warm",
    "Call",
    "Next",
    "Event",
    "Events",
    "End",
    "Ack",
    "Yield",
    "Result",
    "Error",
    "Stop",
    "Http",
    "Response",
]
RECORDS: tuple[type[Record], ...] = tuple(
    sorted((*RUNTIME_RECORDS, *HARNESS_RECORDS), key=lambda record: _ORDER.index(record.__name__))
)
"""Every message, in the order a conversation meets them (the schema's and the TypeScript's order)."""

OVERVIEW = (
    "One JSON object per line. The runtime reads the harness's messages on stdin and writes its own on "
    "stdout (stderr is free for logs). The runtime starts with `hello` (from version 2 a hello that says "
    "`warming` is followed by `warm` once the runtime has loaded); the harness then sends one `call` per "
    "case and waits for its `result` or `error`. While a call runs, the runtime may pull the events of a "
    "streamed argument with `next` (answered by `event` or `end`; after a hello that says `pipeline`, "
    "they come unasked in `events` and `end`) and, for a streaming method, send items with `yield`. "
    "`stop` asks the runtime to exit with status 0. A field a version added says so (`since`); a hello "
    "names its version, and a field of a later one keeps its default. "
)


class _Schema(GenerateJsonSchema):
    """Pydantic's schema, as the protocol reads: ``X | None = None`` is a field that may be left out
    (never ``null``), no titles, no defaults, descriptions on one line."""

    def nullable_schema(self, schema: core_schema.NullableSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        return self.generate_inner(schema["schema"])


def _name(record: str, messages: dict[str, str]) -> str:
    return messages.get(record) or record[:1].lower() + record[1:]


def _tidy(node: Any, names: dict[str, str]) -> Any:
    if isinstance(node, list):
        return [_tidy(item, names) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
            value = "#/$defs/" + names.get(value[8:], value[8:])
        elif key == "description" and isinstance(value, str):
            value = " ".join(value.split())
        out[key] = _tidy(value, names) if key not in ("const", "enum") else value
    return out


def generate() -> dict[str, Any]:
    """The schema for the apis and kinds known in this process."""
    messages = {record.__name__: str(record.model_fields["type"].default) for record in RECORDS}
    models: tuple[type[Record], ...] = (*RECORDS, Recorded, RecordedHead)
    _, found = models_json_schema(
        [(record, "validation") for record in models],
        schema_generator=_Schema,
        ref_template="#/$defs/{model}",
    )
    raw: dict[str, Any] = found["$defs"]
    names = {name: _name(name, messages) for name in raw}
    defs: dict[str, Any] = {
        "id": {"type": "integer", "minimum": 1, "description": ID_DESCRIPTION},
        "capability": {"type": "string", "pattern": capability_pattern()},
    }
    order = [record.__name__ for record in RECORDS]
    for name in sorted(raw, key=lambda name: order.index(name) if name in order else len(order)):
        node = _tidy(raw[name], names)
        if name in messages:
            node["required"] = ["type", *(n for n in node.get("required", []) if n != "type")]
            node["properties"]["type"] = {"const": messages[name]}
            for field in node["properties"].values():
                if field.get("description") == ID_DESCRIPTION:
                    field.clear()
                    field["$ref"] = "#/$defs/id"
        defs[names[name]] = node
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://wireconf.invalid/exec-protocol/{PROTOCOL_VERSION}",
        "title": f"wireconf exec protocol, version {PROTOCOL_VERSION}",
        "description": OVERVIEW + SUPPORT_POLICY,
        "oneOf": [{"$ref": f"#/$defs/{messages[record.__name__]}"} for record in RECORDS],
        "$defs": defs,
    }


def render(schema: dict[str, Any]) -> str:
    """The text of ``schema.json``."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


BEGIN = "<!-- generated by `wireconf exec-schema --markdown`: do not edit -->"
END = "<!-- end of the generated tables -->"


def _type(node: dict[str, Any]) -> str:
    if "$ref" in node:
        return f"`{node['$ref'].rsplit('/', 1)[-1]}`"
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return " \\| ".join(f"`{json.dumps(value)}`" for value in node["enum"])
    if "anyOf" in node:
        return " \\| ".join(_type(choice) for choice in node["anyOf"])
    kind = node.get("type")
    if kind == "array":
        return f"list of {_type(node.get('items', {}))}"
    if kind == "object" and isinstance(node.get("additionalProperties"), dict):
        return f"object of {_type(node['additionalProperties'])}"
    return str(kind) if kind else "any JSON"


def markdown(schema: dict[str, Any]) -> str:
    """Every message and object of ``schema`` as a table of its fields (docs/exec-protocol.md)."""
    out = [BEGIN, "", "#### Hello flags, by the version that added each", ""]
    out += ["| flag | since | meaning |", "|---|---|---|"]
    for field, spec in schema["$defs"]["hello"]["properties"].items():
        if "since" in spec:
            text = str(spec.get("description", "")).replace("|", "\\|")
            out.append(f"| `{field}` | {spec['since']} | {text} |")
    out.append("")
    for name, node in schema["$defs"].items():
        if "properties" not in node:
            continue
        out += [f"#### `{name}`", "", " ".join(str(node.get("description", "")).split()), ""]
        out += ["| field | type | required | since | meaning |", "|---|---|---|---|---|"]
        required = set(node.get("required", ()))
        for field, spec in node["properties"].items():
            text = str(spec.get("description", "")).replace("|", "\\|")
            yes = "yes" if field in required else ""
            out.append(f"| `{field}` | {_type(spec)} | {yes} | {spec.get('since', '')} | {text} |")
        out.append("")
    return "\n".join([*out, END]) + "\n"


def page_with_tables(page: str, schema: dict[str, Any]) -> str:
    """``page`` with its generated section replaced by the tables of ``schema``."""
    head, _, rest = page.partition(BEGIN)
    _, _, tail = rest.partition(END + "\n")
    return head + markdown(schema) + tail
