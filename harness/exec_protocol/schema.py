"""The JSON Schema of the exec protocol's messages, generated from the records it names.

The apis come from the provider records (``harness.providers``), the kinds and their methods from the
kind records (``harness.kinds``): a new api or kind is in the schema without an edit here.
``schema.json`` beside this module is this schema for the built-in records, committed for runtimes in
other languages to read (``wireconf exec-schema --write`` regenerates it; a test keeps it current);
``wireconf exec-schema`` prints the schema of the records installed here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness.exec_protocol import PROTOCOL_VERSION
from harness.exec_protocol.messages import SCHEMA_FILE
from harness.kinds.registry import KINDS, OPTIONAL_METHODS
from harness.providers.registry import API_NAMES

COMMITTED = Path(__file__).with_name(SCHEMA_FILE)

_MESSAGES = ("hello", "call", "next", "event", "end", "yield", "result", "error", "stop")


def _alternatives(names: tuple[str, ...]) -> str:
    return "|".join(re.escape(name) for name in names)


def _message(description: str, kind: str, properties: dict[str, Any], required: tuple[str, ...]) -> Any:
    return {
        "description": description,
        "type": "object",
        "required": ["type", *required],
        "additionalProperties": False,
        "properties": {"type": {"const": kind}, **properties},
    }


def generate() -> dict[str, Any]:
    """The schema for the apis and kinds known in this process."""
    servable = tuple(kind for kind in KINDS.values() if kind.servable)
    kinds = tuple(kind.name for kind in servable)
    methods = tuple(kind.method.name for kind in servable if kind.method is not None)
    optional = tuple(method.name for method in OPTIONAL_METHODS)
    call_id = {"$ref": "#/$defs/id"}
    defs: dict[str, Any] = {
        "id": {"type": "integer", "minimum": 1, "description": "The call this message belongs to"},
        "capability": {
            "type": "string",
            "pattern": f"^({_alternatives(kinds)}):({_alternatives(API_NAMES)})$",
        },
        "hello": _message(
            "runtime → harness, first line: who the runtime is and the capabilities it declares (e2e and "
            "trace cannot cross a process: the SDK client stays in the harness, the spans in the runtime)",
            "hello",
            {
                "protocol": {"const": PROTOCOL_VERSION},
                "name": {"type": "string", "minLength": 1},
                "version": {"type": "string", "minLength": 1},
                "capabilities": {
                    "type": "array",
                    "items": {"$ref": "#/$defs/capability"},
                    "uniqueItems": True,
                },
                "optional": {
                    "description": "the optional methods of the adapter contract this runtime has; the "
                    "harness calls only these",
                    "type": "array",
                    "items": {"enum": list(optional)},
                    "uniqueItems": True,
                },
            },
            ("protocol", "name", "version", "capabilities"),
        ),
        "call": _message(
            "harness → runtime: one adapter call (one case). `args` holds the method's arguments by name, "
            "as JSON; an SDK object (a provider response) is sent as the provider's own JSON and named in "
            "`sdk`; the argument named in `stream` is not in `args`: its events are pulled with `next`.",
            "call",
            {
                "id": call_id,
                "kind": {"enum": list(kinds)},
                "api": {"enum": [*API_NAMES, None], "description": "null only for set_tool_registry"},
                "method": {"enum": [*methods, *optional]},
                "args": {"type": "object"},
                "sdk": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
                "stream": {"type": ["string", "null"]},
            },
            ("id", "kind", "api", "method", "args"),
        ),
        "next": _message(
            "runtime → harness: send the next event of the streamed argument",
            "next",
            {"id": call_id},
            ("id",),
        ),
        "event": _message(
            "harness → runtime: one stream event, as the provider's JSON",
            "event",
            {"id": call_id, "event": {}},
            ("id", "event"),
        ),
        "end": _message("harness → runtime: the stream has no more events", "end", {"id": call_id}, ("id",)),
        "yield": _message(
            "runtime → harness: one item yielded by a streaming method (process_stream), in order",
            "yield",
            {"id": call_id, "item": {}},
            ("id", "item"),
        ),
        "result": _message(
            "runtime → harness: the call returned `value` (null for a streaming method, whose items were "
            "yielded)",
            "result",
            {"id": call_id, "value": {}},
            ("id",),
        ),
        "error": _message(
            "runtime → harness: the call raised. `mro` lists the exception's classes, most derived first, "
            "as module.Name (a bare Name, or builtins.Name, that is a Python built-in exception is that "
            "exception: ValueError)",
            "error",
            {
                "id": call_id,
                "error": {
                    "type": "object",
                    "required": ["type", "message"],
                    "additionalProperties": False,
                    "properties": {
                        "type": {"type": "string", "minLength": 1},
                        "mro": {"type": "array", "items": {"type": "string", "minLength": 1}},
                        "message": {"type": "string"},
                        "traceback": {"type": "string"},
                    },
                },
            },
            ("id", "error"),
        ),
        "stop": _message("harness → runtime: the run is over; exit with status 0", "stop", {}, ()),
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://wireconf.invalid/exec-protocol/{PROTOCOL_VERSION}",
        "title": f"wireconf exec protocol, version {PROTOCOL_VERSION}",
        "description": "One JSON object per line. The runtime reads the harness's messages on stdin and "
        "writes its own on stdout (stderr is free for logs). The runtime starts with `hello`; the harness "
        "then sends one `call` per case and waits for its `result` or `error`. While a call runs, the "
        "runtime may pull the events of a streamed argument with `next` (answered by `event` or `end`) "
        "and, for a streaming method (process_stream), send items with `yield`. `stop` asks the runtime "
        "to exit with status 0.",
        "oneOf": [{"$ref": f"#/$defs/{name}"} for name in _MESSAGES],
        "$defs": defs,
    }


def render(schema: dict[str, Any]) -> str:
    """The text of ``schema.json``."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
