"""The exec protocol's records (``wireconf/exec_protocol/records/``) are its one source: every message of
real conversations fits them, the committed schema.json says the same as they do on every sample, each
wrong message is refused naming its type, its field and the value there, and a hello's rules by
protocol version are one table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO
from wireconf.exec_protocol.messages import ProtocolError, check, decode, schema

jsonschema = pytest.importorskip("jsonschema")
VALIDATOR = jsonschema.Draft202012Validator(schema())
TRANSCRIPT = REPO / "tests" / "data" / "exec_transcript.jsonl"
"""Messages of real runs (``WIRECONF_EXEC_TRANSCRIPT``), one of each shape: the Python helper in
protocols 3 and 2 on the openai.chat and anthropic.messages cases, the Node.js fake
(tests/fakes/node_runtime.mjs), and the recorded-inputs fake of protocol 2 with e2e over ``http``."""


def _transcript() -> list[dict]:
    return [json.loads(line) for line in TRANSCRIPT.read_text(encoding="utf-8").splitlines()]


def test_every_message_of_recorded_conversations_fits_its_record_and_the_schema():
    entries = _transcript()
    seen = set()
    for entry in entries:
        message = entry["message"]
        decode(json.dumps(message), entry["from"])  # raises if its record refuses it
        assert not list(VALIDATOR.iter_errors(message)), entry
        seen.add((entry["from"], message["type"]))
    runtime = {"hello", "warm", "next", "yield", "result", "error", "http"}
    harness = {"call", "event", "events", "end", "response", "stop"}
    assert seen == {("runtime", t) for t in runtime} | {("harness", t) for t in harness}


def test_a_message_is_read_only_from_the_side_that_sends_it():
    with pytest.raises(ProtocolError, match="`call` is not a message this side sends"):
        decode(json.dumps({"type": "call", "id": 1, "kind": "wire", "api": None, "method": "x", "args": {}}))
    with pytest.raises(ProtocolError, match="`result` is not a message this side sends"):
        decode(json.dumps({"type": "result", "id": 1}), "harness")


HELLO = {"type": "hello", "protocol": 3, "name": "x", "version": "1", "capabilities": ["wire:openai.chat"]}
ERROR = {"type": "error", "id": 1, "error": {"type": "E", "message": "m"}}
CALL = {"type": "call", "id": 1, "kind": "process", "api": "openai.chat", "method": "process", "args": {}}
ENDPOINT = {
    "api": "openai.chat",
    "origin": "http://127.0.0.1:4000/t0k3n",
    "api_base_url": "http://127.0.0.1:4000/t0k3n/v1",
    "api_version": "v1",
    "key": "wireconf-placeholder",
    "proxy": "http://wireconf:t0k3n@127.0.0.1:4000",
    "ca_file": None,
    "download": "http://127.0.0.1:4000/t0k3n/.well-known/wireconf/download",
}


def test_a_call_carries_its_endpoint_from_protocol_4():
    """The endpoint of plan section 6.1 (the emulator's ``Endpoint``), null ``ca_file`` included."""
    check({**CALL, "endpoint": ENDPOINT}, "harness")
    assert VALIDATOR.is_valid({**CALL, "endpoint": ENDPOINT})


INVALID = [
    # (sender, message, the field named, the value shown)
    ("runtime", {**HELLO, "capabilities": ["wire:openai.chatt"]}, "capabilities.0", "'wire:openai.chatt'"),
    ("runtime", {**HELLO, "capabilities": ["wire:openai.chat", "wire:openai.chat"]}, "capabilities", None),
    ("runtime", {**HELLO, "name": ""}, "name", "''"),
    ("runtime", {**HELLO, "version": 1}, "version", "1"),
    ("runtime", {**HELLO, "warming": "yes"}, "warming", "'yes'"),
    ("runtime", {**HELLO, "optional": ["fly"]}, "optional.0", "'fly'"),
    ("runtime", {**HELLO, "colour": "red"}, "colour", "'red'"),
    ("runtime", {"type": "result"}, "id", None),
    ("runtime", {"type": "result", "id": 0}, "id", "0"),
    ("runtime", {"type": "result", "id": True}, "id", "True"),
    ("runtime", {"type": "result", "id": 1, "streamed": None}, "streamed", "None"),
    ("runtime", {"type": "yield", "id": 1}, "item", None),
    ("runtime", {"type": "yield", "id": 1, "item": 1, "read": -1}, "read", "-1"),
    ("runtime", {**ERROR, "error": {"message": "no type"}}, "error.type", None),
    ("runtime", {**ERROR, "error": {**ERROR["error"], "category": "bad"}}, "error.category", "'bad'"),
    ("runtime", {**ERROR, "error": {**ERROR["error"], "status": 700}}, "error.status", "700"),
    ("runtime", {**ERROR, "error": {**ERROR["error"], "status": None}}, "error.status", "None"),
    ("runtime", {**ERROR, "error": {**ERROR["error"], "mro": None}}, "error.mro", "None"),
    ("runtime", {**ERROR, "error": {**ERROR["error"], "origin": "harness"}}, "error.origin", "'harness'"),
    ("runtime", {"type": "http", "id": 1, "request": {"method": "GET", "url": ""}}, "request.url", "''"),
    ("harness", {"type": "events", "id": 1, "events": [{"nothing": 1}]}, "events.0", None),
    ("harness", {"type": "event", "id": 1, "event": {}, "chunk": "x"}, "the message", None),
    ("harness", {"type": "response", "id": 1, "status": 200}, "the message", None),
    (
        "harness",
        {"type": "call", "id": 1, "kind": "trace", "api": None, "method": "x", "args": {}},
        "kind",
        None,
    ),
    ("harness", {"type": "stop", "now": True}, "now", "True"),
    ("harness", {**CALL, "endpoint": {**ENDPOINT, "origin": None}}, "endpoint.origin", "None"),
    (
        "harness",
        {**CALL, "endpoint": {k: v for k, v in ENDPOINT.items() if k != "key"}},
        "endpoint.key",
        None,
    ),
    ("harness", {**CALL, "endpoint": {**ENDPOINT, "api": "openai.chatt"}}, "endpoint.api", "'openai.chatt'"),
]


@pytest.mark.parametrize(("sender", "message", "field", "value"), INVALID)
def test_a_wrong_message_is_refused_naming_its_type_the_field_and_the_value(sender, message, field, value):
    with pytest.raises(ProtocolError) as refused:
        decode(json.dumps(message), sender)
    text = refused.value.message
    assert f"the {sender}'s `{message['type']}` message: " in text
    assert (f"`{field}`" if field != "the message" else "the message") in text
    if value is not None:
        assert f"= {value}" in text
    assert not VALIDATOR.is_valid(message), "the schema says the same as the record"


# protocol, the hello's other fields, accepted (and, when not, what the refusal says)
HELLO_RULES = [
    (1, {}, None),
    (2, {}, None),
    (3, {}, None),
    (7, {}, "protocol 7 is not supported"),
    (1, {"inputs": "json", "warming": False, "categories": False}, None),
    (1, {"inputs": "recorded"}, '`inputs` is "json" or'),
    (2, {"inputs": "recorded"}, None),
    (2, {"inputs": "bytes"}, "inputs"),
    (1, {"warming": True}, "`warming` is true or false, from protocol 2"),
    (2, {"warming": True}, None),
    (1, {"categories": True}, "`categories` is true or false, from protocol 2"),
    (2, {"categories": True}, None),
    (2, {"pipeline": True}, "`pipeline` is true or false, from protocol 3"),
    (3, {"pipeline": True}, None),
    (2, {"ahead": True}, "`ahead` is true or false, from protocol 3"),
    (3, {"ahead": True}, "`ahead` is true or false, true only with `pipeline`"),
    (3, {"ahead": True, "pipeline": False}, "true only with `pipeline`"),
    (3, {"ahead": True, "pipeline": True}, None),
    (1, {"capabilities": ["e2e:openai.chat"]}, "e2e capabilities need protocol 2"),
    (2, {"capabilities": ["e2e:openai.chat"]}, None),
    (3, {"capabilities": ["trace:openai.chat"]}, "trace capabilities cannot be served over exec"),
    (1, {"capabilities": ["concept:mcp-tools", "stream:gemini.generate_content"]}, None),
    (3, {"endpoints": True}, "`endpoints` is true or false, from protocol 4"),
    (4, {"endpoints": True}, None),
    (4, {"endpoints": "yes"}, "endpoints"),
]


@pytest.mark.parametrize(("protocol", "fields", "refusal"), HELLO_RULES)
def test_the_hellos_rules_by_protocol_version(protocol, fields, refusal):
    hello = {**HELLO, "protocol": protocol, **fields}
    if refusal is None:
        check(hello, "runtime")
    else:
        with pytest.raises(ProtocolError, match=refusal.replace("(", r"\(")):
            check(hello, "runtime")
    assert VALIDATOR.is_valid(hello) == (refusal is None), "the schema says the same as the record"


def test_the_schemas_records_are_the_records_the_harness_validates_with():
    """Every message type of the schema has a record, and every record is in the schema."""
    from wireconf.exec_protocol.records import HARNESS_RECORDS, RUNTIME_RECORDS

    in_schema = {
        node["properties"]["type"]["const"]
        for node in schema()["$defs"].values()
        if "const" in node.get("properties", {}).get("type", {})
    }
    assert in_schema == {r.model_fields["type"].default for r in (*RUNTIME_RECORDS, *HARNESS_RECORDS)}


def test_a_message_the_harness_builds_wrong_is_refused_before_it_is_written(monkeypatch):
    from wireconf.exec_protocol.messages import VALIDATE, writing

    monkeypatch.setenv(VALIDATE, "1")
    with pytest.raises(ProtocolError, match="`id` = 0"):
        writing({"type": "end", "id": 0}, "harness")
    monkeypatch.setenv(VALIDATE, "0")
    writing({"type": "end", "id": 0}, "harness")  # unchecked outside the tests: no cost per message


def test_the_transcript_is_small_and_real():
    assert TRANSCRIPT.stat().st_size < 64_000
    assert {entry["source"] for entry in _transcript()} >= {"t3", "t2", "node", "recorded"}
    assert Path(TRANSCRIPT).suffix == ".jsonl"


def test_the_implementers_page_holds_the_current_tables_of_fields():
    from wireconf.exec_protocol.schema import BEGIN, PAGE, generate, markdown

    page = PAGE.read_text(encoding="utf-8")
    assert BEGIN in page
    assert markdown(generate()) in page, "run `wireconf exec-schema --write`"
    assert "(exec-protocol.md)" in (REPO / "docs" / "adapters.md").read_text(encoding="utf-8")
