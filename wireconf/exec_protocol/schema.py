"""The JSON Schema of the exec protocol's messages, generated from the records it names.

The apis come from the provider records (``wireconf.providers``), the kinds, their methods and the
protocol version each needs from the kind records (``wireconf.kinds``), the concepts a runtime may
declare from the adapter contract (``CONCEPTS``): a new api or kind is in the schema without an edit
here. The messages themselves (their fields and what they mean) are written
here. ``schema.json`` beside this module is the schema for the built-in records, committed for runtimes
in other languages to read: edit this module, then ``wireconf exec-schema --write`` (a test checks the
committed file is current). ``wireconf exec-schema`` prints the schema of the records installed here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from wireconf.adapter_contract import CONCEPT, CONCEPTS
from wireconf.error_categories import CATEGORIES
from wireconf.exec_protocol import PROTOCOL_VERSION, PROTOCOL_VERSIONS
from wireconf.exec_protocol.messages import SCHEMA_FILE
from wireconf.kinds.registry import KINDS, OPTIONAL_METHODS
from wireconf.providers.registry import API_NAMES

COMMITTED = Path(__file__).with_name(SCHEMA_FILE)

_MESSAGES = (
    "hello",
    "call",
    "next",
    "ack",
    "event",
    "events",
    "end",
    "yield",
    "result",
    "error",
    "stop",
    "http",
    "response",
    "warm",
)

_HEADERS = {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}


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


def _limit(kind: str, protocol: int | None, why: str) -> str:
    if protocol == 1:
        return ""
    return f"{kind} {'cannot cross a process' if protocol is None else f'from protocol {protocol}'}: {why}"


def _listed(names: list[str]) -> str:
    return ", ".join(names) if names else "none"


def generate() -> dict[str, Any]:
    """The schema for the apis and kinds known in this process."""
    crossing = [kind for kind in KINDS.values() if kind.exec_protocol is not None]
    kinds = tuple(kind.name for kind in crossing)
    methods = [kind.method for kind in crossing if kind.method is not None]
    later = [kind for kind in crossing if kind.exec_protocol and kind.exec_protocol > 1]
    limits = "; ".join(
        filter(None, (_limit(kind.name, kind.exec_protocol, kind.exec_limits) for kind in KINDS.values()))
    )
    yielding = [m.name for m in methods if m.yields]
    streaming = [m.name for m in methods if m.may_stream]
    bridged = [m for m in methods if m.http_client is not None]
    call_id = {"$ref": "#/$defs/id"}
    hello: dict[str, Any] = _message(
        f"runtime → harness, first line: who the runtime is and the capabilities it declares ({limits})",
        "hello",
        {
            "protocol": {"enum": list(PROTOCOL_VERSIONS)},
            "inputs": {
                "description": "protocol 2: how SDK arguments cross. `json` (the default, and version 1's "
                "only way): an SDK object as the provider's JSON, a stream event as the provider's JSON. "
                "`recorded`: an SDK object as the recorded HTTP response it was parsed from (`recorded`); a "
                "streamed argument's head (`recordedHead`) is in `args` under its name, and each `event` "
                "carries the next event's bytes as `chunk`, so that the runtime's own SDK parses them",
                "enum": ["json", "recorded"],
            },
            "name": {"type": "string", "minLength": 1},
            "version": {"type": "string", "minLength": 1},
            "capabilities": {"type": "array", "items": {"$ref": "#/$defs/capability"}, "uniqueItems": True},
            "optional": {
                "description": "the optional methods of the adapter contract this runtime has; the "
                "harness calls only these",
                "type": "array",
                "items": {"enum": [method.name for method in OPTIONAL_METHODS]},
                "uniqueItems": True,
            },
            "warming": {
                "description": "protocol 2: the runtime goes on loading (its SDKs, say) after this hello "
                "and says `warm` when it is done; the harness goes on with its own start-up meanwhile and "
                "waits for `warm` before the first call's time limit starts",
                "type": "boolean",
            },
            "categories": {
                "description": "protocol 2: this runtime's errors may carry `category` (and `status`), "
                "what the error means in the spec's terms (`error`); without it an error's `category` "
                "is a protocol error",
                "type": "boolean",
            },
            "pipeline": {
                "description": "protocol 3, opt-in: the harness sends the events of a call's streamed "
                "argument right after the call, in `events` batches and then `end`, without waiting for "
                "`next` (the runtime sends no `next` for them), so that the harness and the runtime work at "
                "once; the runtime says in each `yield` how many of the events its SDK had read (`read`), "
                "which is how the harness still judges incremental processing. Without it (and under "
                "protocols 1 and 2) the events are pulled one at a time with `next`",
                "type": "boolean",
            },
            "ahead": {
                "description": "protocol 3, opt-in, with `pipeline`: the harness may send the calls of the "
                "next cases (each with its events) before the runtime has answered the current one, so "
                "that the runtime works on them while the harness judges and reports; the runtime reads "
                "and answers them one at a time, in the order sent, each call's replies (`events`, `end`, "
                "`response`) kept for that call. A call sent ahead whose case does not run after all is "
                "still answered; the harness drops the answer. Its time limit starts when the harness "
                "starts waiting for its answer. Without it the harness sends a call only once the one "
                "before it is answered",
                "type": "boolean",
            },
        },
        ("protocol", "name", "version", "capabilities"),
    )
    version_one: dict[str, Any] = {
        "inputs": {"const": "json"},
        "warming": {"const": False},
        "categories": {"const": False},
        "pipeline": {"const": False},
        "ahead": {"const": False},
    }
    if later:
        pattern = f"^({_alternatives(tuple(kind.name for kind in later))}):"
        version_one["capabilities"] = {"items": {"not": {"pattern": pattern}}}
    hello["if"] = {"properties": {"protocol": {"const": 1}}}
    hello["then"] = {"properties": version_one}
    hello["else"] = {
        "if": {"properties": {"protocol": {"const": 2}}},
        "then": {"properties": {"pipeline": {"const": False}, "ahead": {"const": False}}},
        "else": {
            "if": {"properties": {"ahead": {"const": True}}, "required": ["ahead"]},
            "then": {"required": ["pipeline"], "properties": {"pipeline": {"const": True}}},
        },
    }
    bridge_note = " ".join(
        f"{method.name} (protocol 2): `args` holds `{method.http_client}`, the harness's SDK client "
        "described: `base_url` as the provider's Python SDK takes it (OpenAI's ends in /v1, Anthropic's "
        "has no version, as its TypeScript SDK takes it too; Gemini's ends in /), `origin` (scheme and "
        "host) and `api_base_url` (up to and including the API version: .../v1, .../v1beta, the form "
        "most other SDKs take); the runtime builds its own SDK client on the form its SDK takes and "
        "sends its HTTP with `http`. A case asks for a stream in its agent, "
        "`model.options.additionalProperties.stream: true` (every api; on Gemini it selects the "
        "`:streamGenerateContent?alt=sse` route): the runtime sends the request its SDK sends for a "
        "stream, and an event stream's answer is a `response` without `body`, pulled with `next`."
        for method in bridged
    )
    defs: dict[str, Any] = {
        "id": {"type": "integer", "minimum": 1, "description": "The call this message belongs to"},
        "capability": {
            "type": "string",
            "pattern": f"^(({_alternatives(kinds)}):({_alternatives(API_NAMES)})"
            f"|{CONCEPT}:({'|'.join(CONCEPTS)}))$",  # names of [a-z-]: nothing to escape
        },
        "hello": hello,
        "call": _message(
            "harness → runtime: one adapter call (one case). `args` holds the method's arguments by name, "
            "as JSON; an SDK object (a provider response) is sent as the provider's own JSON (with "
            "`inputs: recorded`, as a `recorded` response) and named in `sdk`; an argument of an SDK type "
            "that is not named in `sdk` is plain data (a `response_as: mapping` case: the decoded JSON "
            "body, as it is, whatever `inputs` says); the argument named in `stream` is not in `args` "
            "(with `inputs: recorded`, its `recordedHead` is): its events are pulled with `next` (after a "
            "hello that says `pipeline`, they follow the call unasked, in `events` and `end`). Calls "
            "carry only their method's arguments: a process or stream call has no messages (the "
            "response is judged, not the request). A call ends with its `result` or `error`: no "
            "message carries its id after that (events the runtime did not pull are never sent), but for "
            "the rest of a `pipeline` stream the call did not read to its end: the runtime skips it. "
            f"{bridge_note}".rstrip(),
            "call",
            {
                "id": call_id,
                "kind": {"enum": list(kinds)},
                "api": {"enum": [*API_NAMES, None], "description": "null only for a method without an api"},
                "method": {"enum": [*(m.name for m in methods), *(m.name for m in OPTIONAL_METHODS)]},
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
        "ack": _message(
            "runtime → harness (protocol 4, `pipeline`): it has read every event of the call's first "
            "`events` message (all of the stream but its last event); the harness then sends the rest "
            "(the last event and the `end`), held until this ack, so that what the runtime had read at "
            "each `yield` is what the harness had released",
            "ack",
            {"id": call_id},
            ("id",),
        ),
        "event": {
            **_message(
                "harness → runtime: one stream event, as the provider's JSON (`event`), or with `inputs: "
                "recorded` as the recorded bytes of one server-sent event, its blank line included "
                "(`chunk`: UTF-8 text, or base64 with `encoding`)",
                "event",
                {"id": call_id, "event": {}, "chunk": {"type": "string"}, "encoding": {"const": "base64"}},
                ("id",),
            ),
            "oneOf": [{"required": ["event"]}, {"required": ["chunk"]}],
        },
        "recorded": {
            "description": "protocol 2, `inputs: recorded`: a recorded HTTP response, as a call argument: "
            "status, headers as recorded (name → values), body as UTF-8 text (base64 with `encoding` when "
            "it is not UTF-8)",
            "type": "object",
            "required": ["status", "headers", "body"],
            "additionalProperties": False,
            "properties": {
                "status": {"type": "integer"},
                "headers": _HEADERS,
                "body": {"type": "string"},
                "encoding": {"const": "base64"},
            },
        },
        "recordedHead": {
            "description": "protocol 2, `inputs: recorded`: the status and headers of a recorded stream, as "
            "the streamed argument in `args`; its body follows as `event` chunks",
            "type": "object",
            "required": ["status", "headers"],
            "additionalProperties": False,
            "properties": {"status": {"type": "integer"}, "headers": _HEADERS},
        },
        "events": _message(
            "harness → runtime, protocol 3 after a hello that says `pipeline`: the next events of the "
            "call's streamed argument, in order, sent without a `next` (each as an `event` message's "
            "`event`, or `chunk` and `encoding` with `inputs: recorded`); the runtime hands them to its SDK "
            "as it reads on, and an `end` follows the last batch",
            "events",
            {
                "id": call_id,
                "events": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "event": {},
                            "chunk": {"type": "string"},
                            "encoding": {"const": "base64"},
                        },
                        "oneOf": [{"required": ["event"]}, {"required": ["chunk"]}],
                    },
                },
            },
            ("id", "events"),
        ),
        "end": _message(
            "harness → runtime: the stream has no more events. `error` (protocol 3, `pipeline`): the "
            "recorded stream fails there (an error event, which the harness's SDK raised as an "
            "exception, described as in an `error` message): the runtime's SDK raises it where it reads on",
            "end",
            {"id": call_id, "error": {"$ref": "#/$defs/error/properties/error"}},
            ("id",),
        ),
        "yield": _message(
            f"runtime → harness: one item yielded by a streaming method ({_listed(yielding + streaming)}), "
            "in order. `read` (protocol 3, `pipeline`): how many events of the streamed argument the "
            "runtime's SDK had read when the item was yielded, the `end` counted as one more (as a `next` "
            "answered by `end` was)",
            "yield",
            {"id": call_id, "item": {}, "read": {"type": "integer", "minimum": 0}},
            ("id", "item"),
        ),
        "result": _message(
            f"runtime → harness: the call returned `value` (null for {_listed(yielding)}, whose items were "
            f"yielded). `streamed` ({_listed(streaming)}, protocol 2): the result was a stream whose items "
            "were the call's yields (a stream of no items is an empty list, not null)",
            "result",
            {"id": call_id, "value": {}, "streamed": {"type": "boolean"}},
            ("id",),
        ),
        "http": _message(
            "runtime → harness, during a call (protocol 2): one HTTP request the runtime sends, byte for "
            "byte (body as UTF-8 text, or base64 with `encoding`), answered with `response`. A download "
            "(GET) of a media URL that the call's `messages` name as a part's value is answered with "
            "fixture bytes of the part's media type, in any call (a runtime that inlines media it "
            "downloads); in a call that hands over an SDK client, any other request goes through the "
            "case's SDK client (cassette replay, or recording); anything else is refused as a network "
            "attempt (an `error` response; the case is an error, not a verdict)",
            "http",
            {
                "id": call_id,
                "request": {
                    "type": "object",
                    "required": ["method", "url", "headers"],
                    "additionalProperties": False,
                    "properties": {
                        "method": {"type": "string", "minLength": 1},
                        "url": {"type": "string", "minLength": 1},
                        "headers": _HEADERS,
                        "body": {"type": ["string", "null"]},
                        "encoding": {"const": "base64"},
                    },
                },
            },
            ("id", "request"),
        ),
        "response": {
            **_message(
                "harness → runtime: the answer to `http`: status, headers and body, as a `recorded` "
                "response; for an event stream, status and headers only (a `recordedHead`), the body "
                "pulled with `next` (each `event` a `chunk`); `error` when no response came (no recorded "
                "interaction matches, the connection failed): the runtime's HTTP call fails as on a network "
                "error",
                "response",
                {
                    "id": call_id,
                    "status": {"type": "integer"},
                    "headers": _HEADERS,
                    "body": {"type": "string"},
                    "encoding": {"const": "base64"},
                    "error": {"type": "string"},
                },
                ("id",),
            ),
            "oneOf": [{"required": ["error"]}, {"required": ["status", "headers"]}],
        },
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
                        "category": {
                            "description": "protocol 2, only after a hello that says `categories`: what the "
                            "error means in the spec's terms, whatever its class is called (cases expect "
                            "`expect_error: {category: ...}`). null: none of them (an error the runtime did "
                            "not mean, e.g. a DOMException from atob): its class names are then not read "
                            "as Python's, and it matches no category. Absent: the class names in `mro` are "
                            "mapped as a Python exception's are (ValueError, TypeError, the SDKs' status "
                            "errors). " + "; ".join(f"`{name}`: {text}" for name, text in CATEGORIES.items()),
                            "enum": [*CATEGORIES, None],
                        },
                        "status": {
                            "description": "with category `provider-http-error`: the HTTP status the "
                            "provider answered (an e2e case expecting a 404 passes on the status, whatever "
                            "the error's class is called)",
                            "type": "integer",
                            "minimum": 100,
                            "maximum": 599,
                        },
                        "inexpressible": {
                            "description": "the adapter says the case's input has no form in its runtime "
                            "(its users cannot write it: an image in a system prompt that is text only, a "
                            "role it has no word for), and `message` why: the case is unsupported by this "
                            "runtime, not judged (Python: `wireconf.adapter_contract.Inexpressible`; "
                            "`@wireconf/exec`: `Inexpressible`)",
                            "type": "boolean",
                        },
                        "origin": {
                            "description": "whose code raised the error: `adapter`, the adapter's own (a bug "
                            "of the adapter, not the runtime's: the case is an error naming the adapter, no "
                            "verdict), `runtime` (the default) the runtime's or what it calls (judged as the "
                            "runtime's outcome); told from the stack by the runtime's side "
                            "(wireconf.raise_site)",
                            "enum": ["adapter", "runtime"],
                        },
                        "at": {
                            "description": "with origin `adapter`: where in the adapter's code (module or "
                            "file, line)",
                            "type": "string",
                        },
                    },
                },
            },
            ("id", "error"),
        ),
        "stop": _message("harness → runtime: the run is over; exit with status 0", "stop", {}, ()),
        "warm": _message(
            "runtime → harness, protocol 2, only after a hello that says `warming`: loading is done; calls "
            "are served from now on",
            "warm",
            {},
            (),
        ),
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://wireconf.invalid/exec-protocol/{PROTOCOL_VERSION}",
        "title": f"wireconf exec protocol, version {PROTOCOL_VERSION}",
        "description": "Versions: 1, and 2, which adds the hello's `inputs` (a runtime with its own SDK asks "
        "for the recorded HTTP responses, `recorded`, instead of the provider's JSON) and calls that hand "
        "over an SDK client (the runtime's own SDK sends its HTTP through the harness's client: `http`, "
        "answered by `response`), and 3, which adds the hello's `pipeline` (opt-in: a call's stream events "
        "follow it unasked, in `events` batches) and `ahead` (opt-in: the next cases' calls may be sent "
        "before the current one is answered; the runtime answers them in order). One JSON object per "
        "line. The runtime reads the harness's messages on stdin and writes its own on stdout (stderr "
        "is free for logs). The runtime "
        "starts with `hello` (in version 2 a hello that says `warming` is followed by `warm` once the "
        "runtime has loaded); the harness then sends one `call` per case and waits for its `result` or "
        "`error`. While a call runs, the runtime may pull the events of a streamed argument with `next` "
        "(answered by `event` or `end`; after a hello that says `pipeline`, they come unasked in `events` "
        "and `end`) and, for a streaming method, send items with `yield`. `stop` asks the runtime to exit "
        "with status 0.",
        "oneOf": [{"$ref": f"#/$defs/{name}"} for name in _MESSAGES],
        "$defs": defs,
    }


def render(schema: dict[str, Any]) -> str:
    """The text of ``schema.json``."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
