"""Out-of-process runtimes (``--impl exec:COMMAND``): a Node.js runtime passes what it declares, a crash
fails only the case in flight, every message of real traffic fits the protocol's schema, and the
Python helper serves an in-process adapter with the same verdicts."""

from __future__ import annotations

import dataclasses
import json
import shlex
import shutil
import sys

import pytest

from tests.conftest import CASES, REPO
from wireconf.exec_protocol import PROTOCOL_VERSIONS
from wireconf.exec_protocol.messages import remote_exception, schema

NODE = shutil.which("node")
NODE_RUNTIME = REPO / "tests" / "fakes" / "node_runtime.mjs"
NODE_IMPL = f"--impl=exec:{NODE} {NODE_RUNTIME}"
PY_SERVE = f"{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve"
DECLARED = ("process", "stream")  # the node fake's capabilities, on openai.chat

needs_node = pytest.mark.skipif(NODE is None, reason="node (Node.js) is not installed")


@pytest.fixture
def served_from_repo(monkeypatch):
    """Runtime processes started by a test import this repository's modules (tests.fakes.*)."""
    monkeypatch.setenv("PYTHONPATH", str(REPO))


@needs_node
def test_node_runtime_passes_every_case_it_declares(corpus, run_corpus):
    run = run_corpus(NODE_IMPL)
    declared = {c.id for c in corpus.cases() if c.api == "openai.chat" and c.kind in DECLARED}
    assert declared
    assert run.with_outcome("passed") == declared
    assert run.with_outcome("unsupported") == {c.id for c in corpus.cases()} - declared
    assert run.ret == 0


@needs_node
def test_killing_the_runtime_mid_run_costs_exactly_the_case_in_flight(
    corpus, run_corpus, monkeypatch, tmp_path
):
    flag = tmp_path / "crashed"
    monkeypatch.setenv("WIRECONF_FAKE_CRASH_FILE", str(flag))
    monkeypatch.setenv("WIRECONF_FAKE_CRASH_AT", "30")  # the 30th call of the first process, once
    run = run_corpus(NODE_IMPL)
    assert flag.exists(), "the runtime was not killed"
    errors = run.with_outcome("error")  # no verdict on a case whose runtime died under it
    assert len(errors) == 1
    (case_id,) = errors
    assert "was killed by signal 9 while handling this case" in run.longreprs[case_id]
    assert "restarted" in run.longreprs[case_id]
    declared = {c.id for c in corpus.cases() if c.api == "openai.chat" and c.kind in DECLARED}
    assert run.with_outcome("passed") == declared - errors  # the restarted process served the rest
    assert run.with_outcome("failed") == set()


@needs_node
def test_every_message_of_a_real_run_fits_the_schema(run_corpus, monkeypatch, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    # a stream with tool calls (next/event/end/yield), a refused stream (error), plain processing (result)
    selection = "real-text-then-tool-call or refusal-raises-after-earlier-text or real-plain-text"
    run_corpus(NODE_IMPL, "-k", selection)
    validator = jsonschema.Draft202012Validator(schema())
    seen = set()
    lines = transcript.read_text(encoding="utf-8").splitlines()
    for line in lines:
        entry = json.loads(line)
        errors = [e.message for e in validator.iter_errors(entry["message"])]
        assert not errors, (entry, errors)
        seen.add((entry["from"], entry["message"]["type"]))
    assert seen == {
        ("runtime", "hello"),
        ("harness", "call"),
        ("runtime", "next"),
        ("harness", "event"),
        ("harness", "end"),
        ("runtime", "yield"),
        ("runtime", "result"),
        ("runtime", "error"),
        ("harness", "stop"),
    }


def test_the_schema_rejects_malformed_messages():
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(schema())
    good = {"type": "hello", "protocol": 1, "name": "x", "version": "1", "capabilities": ["wire:openai.chat"]}
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "capabilities": ["wire:openai.chatt"]})
    assert not validator.is_valid({**good, "protocol": max(PROTOCOL_VERSIONS) + 1})
    assert validator.is_valid({**good, "protocol": 3, "pipeline": True})
    assert not validator.is_valid({**good, "protocol": 2, "pipeline": True})  # the pipeline is protocol 3
    assert not validator.is_valid({"type": "events", "id": 1, "events": [{"nothing": 1}]})
    assert validator.is_valid({**good, "protocol": 2, "inputs": "recorded"})
    assert not validator.is_valid({**good, "inputs": "recorded"})  # recorded inputs are protocol 2
    assert not validator.is_valid({**good, "protocol": 2, "inputs": "bytes"})
    assert not validator.is_valid({"type": "result"})  # no id
    assert not validator.is_valid({"type": "error", "id": 1, "error": {"message": "no type"}})


def test_python_helper_serves_an_adapter_with_the_same_verdicts(corpus, run_corpus):
    """Every case the reference passes in-process passes over exec:, the optional methods (custom-tool
    registry, process_async) included; only e2e and trace stay behind (the SDK client and the spans
    cannot cross a process)."""
    run = run_corpus(f"--impl=exec:{PY_SERVE} reference", "--case-timeout=60")  # verdicts, not speed
    behind = {c.id for c in corpus.cases() if c.kind in ("e2e", "trace")}
    assert {c.id for c in corpus.cases() if c.kind == "trace"}
    assert run.with_outcome("passed") == {c.id for c in corpus.cases()} - behind
    assert run.with_outcome("unsupported") == behind
    assert any(getattr(c.model, "registry", None) for c in corpus.cases())


def test_python_helper_carries_exceptions_and_their_tracebacks(corpus, run_corpus, served_from_repo):
    run = run_corpus(f"--impl=exec:{PY_SERVE} tests.fakes.raises:adapter", "-k", "process")
    process = {c.id for c in corpus.cases() if c.kind == "process"}
    assert run.with_outcome("failed") == process
    text = run.longreprs["process.openai.chat.real-plain-text"]
    assert "the adapter raised builtins.RuntimeError: processor exploded on purpose" in text
    assert "tests/fakes/raises.py" in text  # the runtime's own frame, from the other process
    assert "exec_protocol/serve.py" not in text


def test_abandoned_call_restarts_the_runtime_and_the_run_goes_on(run_corpus, served_from_repo):
    # stream cases hang; the wire case runs after one of them, in a freshly started process
    run = run_corpus(
        f"--impl=exec:{PY_SERVE} tests.fakes.hangs:adapter",
        "--case-timeout=2",
        "-k",
        "stream.openai.chat.real-text-deltas or real-plain-text"
        " or wire.openai.chat.single-text-part-is-string",
    )
    assert run.with_outcome("error") == {"stream.openai.chat.real-text-deltas"}
    assert "did not answer within 2 s" in run.longreprs["stream.openai.chat.real-text-deltas"]
    assert run.with_outcome("passed") == {
        "process.openai.chat.real-plain-text",
        "wire.openai.chat.single-text-part-is-string",
    }


def test_a_command_that_cannot_start_is_one_clear_usage_error(pytester):
    result = pytester.runpytest(str(CASES), "--impl=exec:/nonexistent/runtime --flag")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--impl exec:/nonexistent/runtime --flag: cannot start*"])


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("print('hello there')", "*not a JSON line*"),
        ("import sys; sys.exit(3)", "*exited with status 3 before saying hello*"),
        (
            'print(\'{"type":"hello","protocol":1,"name":"x","version":"1","capabilities":["e2e:openai.chat"]}\')',
            "*e2e capabilities need protocol 2*",
        ),
        (
            'print(\'{"type":"hello","protocol":1,"name":"x","version":"1","capabilities":["trace:openai.chat"]}\')',
            "*trace capabilities cannot be served over exec:*",
        ),
        (
            'print(\'{"type":"hello","protocol":7,"name":"x","version":"1","capabilities":[]}\')',
            "*protocol 7 is not supported*",
        ),
    ],
)
def test_a_runtime_with_a_bad_hello_is_rejected_at_start(pytester, script, expected):
    path = pytester.path / "runtime.py"
    path.write_text(script + "\n")
    result = pytester.runpytest(str(CASES), f"--impl=exec:{shlex.quote(sys.executable)} {path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([expected])


def test_remote_exceptions_keep_their_names_for_expect_error():
    exc = remote_exception(
        {"type": "RefusalError", "mro": ["js.RefusalError", "ValueError", "Error"], "message": "no"}
    )
    assert isinstance(exc, ValueError)
    assert type(exc).__name__ == "RefusalError" and type(exc).__module__ == "js"
    custom = remote_exception({"type": "Boom", "mro": ["pkg.errors.Boom", "Exception"], "message": "x"})
    assert not isinstance(custom, ValueError)
    assert [c.__name__ for c in type(custom).__mro__][:2] == ["Boom", "Exception"]


def test_the_python_helper_says_hello_before_loading_and_warm_when_loaded(monkeypatch, tmp_path):
    """The helper answers hello at once and imports the SDKs afterwards; the harness waits for `warm`
    before the first call, and both messages fit the schema."""
    jsonschema = pytest.importorskip("jsonschema")
    from wireconf.exec_protocol.client import ExecAdapter

    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    adapter = ExecAdapter(f"{PY_SERVE} reference")
    try:
        assert adapter.hello["warming"] is True
        adapter.ready()
        body = adapter.build_request(
            "openai.chat",
            {"model": {"id": "m"}},
            [{"role": "user", "content": [{"kind": "text", "value": "Hi"}]}],
        )
        assert body["messages"] == [{"role": "user", "content": "Hi"}]
    finally:
        adapter.close()
    messages = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert [(m["from"], m["message"]["type"]) for m in messages[:3]] == [
        ("runtime", "hello"),
        ("runtime", "warm"),
        ("harness", "call"),
    ]
    validator = jsonschema.Draft202012Validator(schema())
    for entry in messages:
        assert not list(validator.iter_errors(entry["message"])), entry


HELLO_WARMING = json.dumps(
    {"type": "hello", "protocol": 2, "name": "x", "version": "1", "capabilities": [], "warming": True}
)


@pytest.mark.parametrize(
    ("after_hello", "expected"),
    [
        ('print(\'{"type":"result","id":1,"value":null}\', flush=True)', "expected `warm`"),
        ("import sys; sys.exit(4)", "exited with status 4 while warming up"),
    ],
)
def test_a_runtime_that_does_not_finish_warming_is_an_error_before_any_call(tmp_path, after_hello, expected):
    from wireconf.core.case_abort import RunnerEnded
    from wireconf.exec_protocol.client import ExecAdapter

    path = tmp_path / "runtime.py"
    path.write_text(f"print({HELLO_WARMING!r}, flush=True)\n{after_hello}\n")
    adapter = ExecAdapter(f"{shlex.quote(sys.executable)} {path}")
    try:
        with pytest.raises(RunnerEnded, match=expected):  # costs the case about to run, not the run
            adapter.ready()
    finally:
        adapter.close()


def test_a_first_warm_up_longer_than_the_case_time_limit_is_waited_for(tmp_path):
    """Loading after the hello is the runtime's start-up, never a case's: the first case waits for it as
    long as a start may take, though its hello came at once and the case's limit is shorter (a
    restarted process's loading is bounded by the restart's wait,
    tests/integration/test_hostile_adapters.py)."""
    from wireconf.exec_protocol.client import ExecAdapter

    path = tmp_path / "runtime.py"
    warm = json.dumps({"type": "warm"})
    lines = ["import time", f"print({HELLO_WARMING!r}, flush=True)", "time.sleep(2.5)"]
    path.write_text("\n".join([*lines, f"print({warm!r}, flush=True)", "input()", ""]))
    adapter = ExecAdapter(f"{shlex.quote(sys.executable)} {path}")
    try:
        adapter.ready(0.5)  # a restart's wait would be max(0.5 s, twice the quick start + 1 s)
        assert adapter.restarts == 0
    finally:
        adapter.close()


@pytest.mark.parametrize("feature", ["warming", "categories"])
def test_hello_features_of_protocol_2_need_protocol_2(pytester, feature):
    path = pytester.path / "runtime.py"
    hello = {"type": "hello", "protocol": 1, "name": "x", "version": "1", "capabilities": [], feature: True}
    path.write_text(f"print({json.dumps(json.dumps(hello))})\n")
    result = pytester.runpytest(str(CASES), f"--impl=exec:{shlex.quote(sys.executable)} {path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*`{feature}` is true or false, from protocol 2*"])


def test_the_committed_schema_is_the_one_generated_from_the_records():
    """schema.json (read by runtimes in other languages) is generated from the provider and kind
    records: every api and every kind that can cross a process, nothing hand-kept."""
    from wireconf.exec_protocol.schema import COMMITTED, generate, render
    from wireconf.kinds.registry import KINDS
    from wireconf.providers.registry import APIS

    generated = generate()
    assert COMMITTED.read_text(encoding="utf-8") == render(generated), "run `wireconf exec-schema --write`"
    call = generated["$defs"]["call"]["properties"]
    assert call["api"]["enum"] == [*APIS, None]
    assert call["kind"]["enum"] == [kind.name for kind in KINDS.values() if kind.exec_protocol is not None]


EXEC_ERRORS = REPO / "tests" / "fakes" / "exec_errors.py"
EMPTY = "process.openai.embeddings.empty-data-raises"  # expect_error: {category: empty-response, match: ...}


def _errors_run(run_corpus, hello: dict, error: dict):
    command = shlex.join([sys.executable, str(EXEC_ERRORS), json.dumps(hello), json.dumps(error)])
    return run_corpus(f"--impl=exec:{command}", "-k", "embeddings and empty")


@pytest.mark.parametrize(
    ("hello", "error", "outcome"),
    [
        # a runtime that opted in says what its error means, whatever its class is called
        (
            {"categories": True},
            {"type": "EmptyError", "mro": ["js.EmptyError", "Error"], "category": "empty-response"},
            "passed",
        ),
        # `category: null`: none of the spec's errors; its class names are not read as Python's
        (
            {"categories": True},
            {"type": "ValueError", "mro": ["ValueError", "Error"], "category": None},
            "failed",
        ),
        ({"categories": True}, {"type": "E", "mro": ["js.E", "Error"], "category": "refusal"}, "failed"),
        # protocol 2 as it was (no categories): the class names are mapped as a Python exception's are
        ({}, {"type": "ValueError", "mro": ["ValueError", "Error"]}, "passed"),
        ({"protocol": 1}, {"type": "ValueError", "mro": ["ValueError", "Error"]}, "passed"),
        ({}, {"type": "DOMException", "mro": ["DOMException", "Error"]}, "failed"),
        # a category without the hello's opt-in, or one that is not in the vocabulary: the case is an error
        ({}, {"type": "E", "mro": ["E"], "category": "empty-response"}, "error"),
        ({"categories": True}, {"type": "E", "mro": ["E"], "category": "empty"}, "error"),
    ],
)
def test_an_errors_category_is_read_only_after_the_hellos_opt_in(run_corpus, hello, error, outcome):
    run = _errors_run(run_corpus, hello, {**error, "message": "Empty embedding response"})
    assert run.with_outcome(outcome) == {EMPTY}
    if outcome == "failed":
        assert "wrong-error" in run.longreprs[EMPTY] or "but it raised" in run.longreprs[EMPTY]


def test_an_uncategorised_error_names_what_was_expected_and_what_came(run_corpus):
    error = {
        "type": "DOMException",
        "mro": ["DOMException", "Error"],
        "category": None,
        "message": "Invalid character",
    }
    text = _errors_run(run_corpus, {"categories": True}, error).longreprs[EMPTY]
    assert "expected the adapter to raise an error of category empty-response" in text
    assert "but it raised uncategorised DOMException: Invalid character" in text  # its own name


def test_a_recorded_stream_that_fails_leaves_the_runtime_in_step_for_the_next_case(
    run_corpus, monkeypatch, tmp_path
):
    """The SDK raises on the recorded stream's error event (the error the case expects): the runtime is
    told its stream ended and its call is read to its end, so the next case runs in the same process
    rather than a restarted one."""
    failing, after = (
        "stream.anthropic.messages.error-event-raises-after-text",
        "stream.openai.chat.real-text-deltas",
    )
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    run = run_corpus(f"--impl=exec:{PY_SERVE} reference", "-k", f"{failing} or {after}")
    assert run.with_outcome("passed") == {failing, after}, run.longreprs
    messages = [json.loads(line)["message"] for line in transcript.read_text().splitlines()]
    assert [m["type"] for m in messages].count("hello") == 1
    first_call = next(m["id"] for m in messages if m["type"] == "call")
    answers = [m for m in messages if m.get("id") == first_call and m["type"] in ("result", "error")]
    assert len(answers) == 1  # the failing case's call was answered, not abandoned


INCREMENTAL = "stream.openai.chat.real-text-deltas"  # `incremental: true`
STREAMS = (
    "stream.openai.chat and (real-text-then-tool-call or real-text-deltas or refusal-raises-after-earlier)"
)
"""Stream cases with tool calls, an incremental check and a refusal, in both protocols."""


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_the_python_helper_in_any_protocol_gives_the_same_verdicts_and_fits_the_schema(
    run_corpus, corpus, monkeypatch, tmp_path, protocol
):
    """Protocol 3's pipeline is opt-in at hello: the helper told to speak protocol 2 pulls every event
    with `next`, as runtimes of protocol 2 do, and the harness still serves it; speaking 3 or 4, it
    says `pipeline`, the events come unasked in `events` batches and its yields say how far its SDK
    read. Every message fits the schema either way, and the verdicts are the in-process ones, but
    that protocol 3's claimed reading is not judged: its incremental cases are errors that say so
    (protocol 4's windows let the harness see it)."""
    jsonschema = pytest.importorskip("jsonschema")
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    run = run_corpus(f"--impl=exec:{PY_SERVE} --protocol {protocol} reference", "-k", STREAMS)
    inproc = run_corpus("-k", STREAMS)
    unjudged = {case for case, text in run.longreprs.items() if "speak protocol 4" in text}
    assert run.with_outcome("passed") | unjudged == inproc.with_outcome("passed") != set()
    assert bool(unjudged) == (protocol == 3) and unjudged <= run.with_outcome("error")
    if protocol != 3:
        assert INCREMENTAL in run.with_outcome("passed")  # the runtime's reading seen as it yielded
    validator = jsonschema.Draft202012Validator(schema())
    messages = [json.loads(line)["message"] for line in transcript.read_text(encoding="utf-8").splitlines()]
    for message in messages:
        assert not [e.message for e in validator.iter_errors(message)], message
    types = {m["type"] for m in messages}
    hello = next(m for m in messages if m["type"] == "hello")
    assert hello["protocol"] == protocol
    yields = [m for m in messages if m["type"] == "yield"]
    if protocol == 2:
        assert "pipeline" not in hello and "next" in types and "events" not in types
        assert not any("read" in m for m in yields)
    else:
        assert hello["pipeline"] is True and "next" not in types and "events" in types
        assert yields and all(isinstance(m["read"], int) for m in yields)
        assert ("ack" in types) == (protocol == 4)


def test_a_runtime_that_buffers_its_stream_still_fails_incremental_over_the_pipeline(
    run_corpus, served_from_repo
):
    """The events reach the runtime before it asks (protocol 3): what the harness judges is how far the
    runtime's SDK had read when it yielded, so a runtime that reads the whole stream first still fails."""
    run = run_corpus(f"--impl=exec:{PY_SERVE} tests.fakes.buffers_stream:adapter", "-k", INCREMENTAL)
    assert run.with_outcome("failed") == {INCREMENTAL}
    assert "not incremental" in run.longreprs[INCREMENTAL]


UNKNOWN_EVENTS = "stream.anthropic.messages.unknown-events-and-deltas-ignored"
"""A stream with an event and a delta of types the SDK does not know, kept as it parsed them."""


def test_a_warning_made_an_error_does_not_reach_the_harnesss_own_writing(run_corpus):
    """The harness writes each SDK event as JSON for the runtime; pydantic warns that an event of an
    unknown type fits no member of its union. Under ``-W error`` (a project's ``filterwarnings``) that
    warning ended the harness's write, and the case failed as if the runtime had (the helper's
    ``--inputs json``: by default it takes the recorded bytes, which the harness writes as they are)."""
    error = "error:Pydantic serializer warnings:UserWarning"  # not all of them: pytest's own would end it
    run = run_corpus(f"--impl=exec:{PY_SERVE} --inputs json reference", "-k", UNKNOWN_EVENTS, "-W", error)
    assert run.with_outcome("passed") == {UNKNOWN_EVENTS}, run.longreprs


def test_an_input_the_harness_cannot_write_is_an_error_and_no_verdict(run_corpus, monkeypatch):
    """What fails in the harness's own writing of a call's input leaves the case an error: the runtime
    was never called, so no rule can be broken (the helper's ``--inputs json``: SDK objects as JSON)."""
    from wireconf.providers.registry import PROVIDER_OF

    def cannot_write(value: object) -> object:
        raise TypeError(f"cannot write {type(value).__name__}")

    api = "anthropic.messages"
    monkeypatch.setitem(PROVIDER_OF, api, dataclasses.replace(PROVIDER_OF[api], sdk_json=cannot_write))
    run = run_corpus(f"--impl=exec:{PY_SERVE} --inputs json reference", "-k", UNKNOWN_EVENTS)
    assert run.with_outcome("error") == {UNKNOWN_EVENTS}, run.outcomes
    assert "the harness could not write the input of process_stream" in run.longreprs[UNKNOWN_EVENTS]
