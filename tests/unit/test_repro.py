"""``wireconf.repro``: the checks read from a case and a verdict, and the script's frame run for real (a
Python subprocess, standard library only) against a call that sends a request of the test's making."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from dataclasses import replace

import pytest

from tests.conftest import CASES
from wireconf.core.yaml_source import to_plain
from wireconf.kinds.registry import open_corpus
from wireconf.reports.jsonl import CaseRecord
from wireconf.repro.build import (
    ReproError,
    Selection,
    checks,
    contract_check,
    reproducible,
    reproduction,
    result_checks,
    value_at,
)
from wireconf.repro.js_script import JsCall, JsFrame, render_js
from wireconf.repro.result_script import ResultFrame, render_result
from wireconf.repro.script import Answer, Call, Check, render

CASE = "wire.gemini.generate_content.tool-call-fields-and-nested-args"
RULE = "7.9.1/tool-call-ids-sent"


@pytest.fixture(scope="module")
def corpus():
    return open_corpus(CASES)


def _case(corpus, case_id):
    return next(c for c in corpus.cases() if c.id == case_id)


def _difference(path, change, rules, subject="request"):
    return {"subject": subject, "path": path, "change": change, "rules": rules, "text": f"{path}: {change}"}


def test_value_at_reads_keys_and_items_and_says_when_there_is_none():
    document = {"a": [{"b": 1}, {"c": None}]}
    assert value_at(document, "$.a[0].b") == (True, 1)
    assert value_at(document, "$.a[1].c") == (True, None)
    assert value_at(document, "$.a[2]") == (False, None)
    assert value_at(document, "$.a[0].c") == (False, None)
    assert value_at(document, "$") == (True, document)


def test_a_selection_keeps_the_differences_of_one_rule_at_one_generic_place():
    call = _difference("$.contents[1].parts[0].functionCall.id", "missing-key", [RULE])
    result = _difference("$.contents[2].parts[0].functionResponse.id", "missing-key", [RULE])
    other = _difference("$.generationConfig", "unexpected-key", ["7.9.7/no-other-keys"])
    by_place = Selection(path="$.contents[*].parts[*].functionCall.id")
    assert [d for d in (call, result, other) if by_place.keeps(d)] == [call]
    assert [d for d in (call, result, other) if Selection(rule=RULE).keeps(d)] == [call, result]
    assert all(Selection().keeps(d) for d in (call, result, other))


def test_checks_take_the_expected_value_from_the_case_and_nothing_for_an_unexpected_key(corpus):
    case = _case(corpus, CASE)
    found = checks(
        case,
        [
            _difference("$.contents[1].parts[0].functionCall.id", "missing-key", [RULE]),
            _difference("$.generationConfig", "unexpected-key", ["7.9.7/no-other-keys"]),
            _difference("$", "returned", [RULE], subject="result"),  # not a request: no check
        ],
        corpus.catalogue,
        Selection(),
    )
    assert [(c.rule, c.path, c.expected, c.present) for c in found] == [
        (RULE, "$.contents[1].parts[0].functionCall.id", "call_9", True),
        ("7.9.7/no-other-keys", "$.generationConfig", None, False),
    ]
    assert found[0].sentence == corpus.catalogue.rules[RULE].statement


def test_no_script_for_a_runtime_without_a_template_or_a_verdict_without_a_request_difference(corpus):
    case = _case(corpus, CASE)
    args = (corpus.catalogue, Selection(), "wireconf repro", "here")
    with pytest.raises(ReproError, match="no reproduction template"):
        reproduction("nobody", "1", case, [_difference("$.x", "value", [RULE])], *args)
    with pytest.raises(ReproError, match="no difference of the request"):
        reproduction("litellm", "1", case, [_difference("$", "returned", [RULE], "result")], *args)


SENDS = """import urllib.request
request = urllib.request.Request(base_url + "/v1/x", data=json.dumps(BODY).encode(), method="POST")
try:
    urllib.request.urlopen(request)
except urllib.error.HTTPError:
    pass"""


ID = Check(RULE, "ids are sent", "$.contents[0].id", "missing-key", "call_9")
EXTRA = Check("7.9.7/no-other-keys", "nothing else", "$.extra", "unexpected-key", None, present=False)


def _script(tmp_path, body, sends=SENDS, found=(ID, EXTRA), aliases=True):
    call = Call(("nothing",), f"import urllib.error\n\nBODY = {body!r}", sends)
    text = render(
        title="t",
        command="wireconf repro",
        case_id=CASE,
        location="here",
        call=call,
        answer=Answer(400, "application/json", '{"error": {}}'),
        checks=list(found),
        aliases=aliases,
    )
    path = tmp_path / "repro.py"
    path.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=60)


def test_the_script_shows_the_rule_expected_and_actual_and_exits_1_while_they_differ(tmp_path):
    done = _script(tmp_path, {"contents": [{"name": "f"}], "extra": 1})
    assert done.returncode == 1, done.stderr
    assert f"{RULE}: ids are sent" in done.stdout
    assert 'expected: "call_9"\n  actual:   nothing' in done.stdout
    assert "expected: nothing\n  actual:   1" in done.stdout
    assert "2 of 2 difference(s) still show" in done.stdout


def test_the_script_exits_0_once_the_runtime_sends_what_the_rules_expect(tmp_path):
    done = _script(tmp_path, {"contents": [{"id": "call_9", "name": "f"}]})
    assert (done.returncode, done.stdout.strip()) == (
        0,
        "all 2 difference(s) fixed: the request has what the rule expects",
    )


def test_a_proto_spelling_is_read_as_the_json_name_where_the_api_reads_both(tmp_path):
    system = Check(
        "7.9.2/system-instruction", "s", "$.systemInstruction.parts[0].text", "missing-key", "Be brief"
    )
    body = {"system_instruction": {"parts": [{"text": "Be brief"}]}}
    assert _script(tmp_path, body, found=[system]).returncode == 0
    assert _script(tmp_path, body, found=[system], aliases=False).returncode == 1


def test_a_raise_fails_where_the_verdict_saw_one_and_is_not_judged_where_it_saw_a_request(tmp_path):
    raised = Check(RULE, "sends a request", "$", "raised", {"contents": []})
    done = _script(tmp_path, {}, sends='raise ValueError("refused")', found=[raised])
    assert done.returncode == 1 and "it raised builtins.ValueError: refused" in done.stdout
    done = _script(tmp_path, {}, sends='raise ValueError("no network")')  # e.g. a media download offline
    assert done.returncode == 2 and done.stdout.startswith("not reproduced: the runtime sent no request")
    assert _script(tmp_path, {}, sends="pass").returncode == 2


E2E_STREAM = "e2e.openai.chat.stream-parallel-tool-calls"


def test_an_e2e_cases_request_is_checked_against_its_expect_request_and_linked_where_a_template_calls_it(
    corpus,
):
    case = _case(corpus, E2E_STREAM)
    extra = _difference("$.stream_options", "unexpected-key", ["7.1.7/no-other-keys"])
    tools = _difference("$.tools[0].function.name", "value", ["7.1.7/no-other-keys"])
    found = checks(case, [extra, tools], corpus.catalogue, Selection())
    assert [(c.path, c.expected, c.present) for c in found] == [
        ("$.stream_options", None, False),
        ("$.tools[0].function.name", case.raw["expect_request"]["tools"][0]["function"]["name"], True),
    ]
    shows = reproducible(corpus)
    record = CaseRecord("litellm", "1", E2E_STREAM, "e2e", "openai.chat", [], "failed", 0.0)
    assert shows(record, extra)
    assert shows(replace(record, impl="ai-sdk"), extra)  # called as its adapter's execute calls it
    assert not shows(replace(record, impl="prompty-ts"), extra)  # no e2e template of its own
    raised = _result_difference("$", "raised", ["x"])  # after sending: the recorded response, served
    assert shows(record, raised) and not shows(replace(record, impl="ai-sdk"), raised)
    assert not shows(record, {**raised, "change": "value"})  # an e2e result's value: not reproduced


REFUSES = "wire.anthropic.messages.tool-call-arguments-not-json-raises"


def test_a_wire_case_that_expects_an_error_checks_that_nothing_is_sent_and_links_every_wire_template(corpus):
    """7.5/tool-calls-as-tool-use: "arguments that are not a JSON object are an error": a runtime that
    sends a request for them shows the deviation; the check expects the case's error, before sending.
    The JavaScript frame judges it too, and a case whose input names a media URL is linked (the script
    answers the download)."""
    case = _case(corpus, REFUSES)
    sent = _result_difference("$", "returned", ["7.5/tool-calls-as-tool-use"])
    found = checks(case, [sent], corpus.catalogue, Selection())
    assert [(c.path, c.change, c.expected) for c in found] == [("$", "returned", "an error (invalid-input)")]
    assert checks(_case(corpus, CASE), [sent], corpus.catalogue, Selection()) == []  # expects a request
    shows = reproducible(corpus)
    record = CaseRecord("prompty", "1", REFUSES, "wire", "anthropic.messages", [], "failed", 0.0)
    assert shows(record, sent)
    assert shows(replace(record, impl="ai-sdk"), sent)
    assert shows(replace(record, id="wire.openai.responses.system-image-raises"), sent)  # an image URL
    assert not shows(replace(record, impl="nobody"), sent)


def test_a_request_sent_where_the_input_was_to_be_refused_shows_until_the_runtime_raises(tmp_path):
    refuses = Check(
        "7.4/instructions-text", "an image is an error", "$", "returned", "an error (invalid-input)"
    )
    done = _script(tmp_path, {"input": []}, found=[refuses])
    assert done.returncode == 1, done.stdout
    assert "expected: an error (invalid-input), raised before any request" in done.stdout
    assert 'actual:   it sent a request to /v1/x: {"input": []}' in done.stdout
    fixed = _script(
        tmp_path, {}, sends='raise ValueError("a system message holds text only")', found=[refuses]
    )
    assert fixed.returncode == 0 and "fixed: the runtime raised before sending" in fixed.stdout


def test_a_key_the_sdk_refuses_as_a_keyword_fails_the_check_that_it_is_not_sent(tmp_path):
    """A rule that says a key is not sent and causes no error: a runtime that passes it to an SDK method
    without that parameter raises before anything is sent, which shows the deviation (exit 1); a raise
    naming another keyword, or of another kind, is still not judged (exit 2)."""
    refused = "raise TypeError(\"Completions.create() got an unexpected keyword argument 'extra'\")"
    done = _script(tmp_path, {}, sends=refused, found=[EXTRA])
    assert done.returncode == 1, done.stdout
    assert "7.9.7/no-other-keys: nothing else" in done.stdout
    assert "expected: nothing (the key left out, the request sent)" in done.stdout
    assert "actual:   it raised builtins.TypeError" in done.stdout
    other = "raise TypeError(\"create() got an unexpected keyword argument 'top_k'\")"
    assert _script(tmp_path, {}, sends=other, found=[EXTRA]).returncode == 2
    assert (
        _script(tmp_path, {}, sends=refused.replace("TypeError", "ValueError"), found=[EXTRA]).returncode == 2
    )
    assert _script(tmp_path, {}, sends=refused, found=[ID]).returncode == 2  # not a key that must be left out


def test_a_generated_script_imports_only_the_runtime(corpus):
    pytest.importorskip("litellm")
    case = _case(corpus, CASE)
    differences = [_difference("$.contents[1].parts[0].functionCall.id", "missing-key", [RULE])]
    text = reproduction("litellm", "1", case, differences, corpus.catalogue, Selection(), "c", "here")
    imports = {line.split()[1] for line in text.splitlines() if line.startswith(("import ", "from "))}
    assert imports == {"json", "re", "sys", "threading", "http.server", "litellm"}
    assert "api_base=base_url" in text and json.dumps("call_9") in text.replace("'", '"')
    assert re.search(r"Needs only: pip install litellm==\S+ google-genai==\S+\n", text)  # the api's SDK too


def test_a_runtime_not_installed_here_is_an_error_naming_its_environment(corpus, monkeypatch):
    """LangChain's template writes LangChain's own message objects: without it (the project's
    environment) the error says where to run the command, instead of a traceback."""
    monkeypatch.setitem(sys.modules, "langchain_core", None)  # as where it is not installed
    monkeypatch.setitem(sys.modules, "langchain_core.load", None)
    case = _case(corpus, CASE)
    differences = [_difference("$.contents[1].parts[0].functionCall.id", "missing-key", [RULE])]
    needs = r"langchain is not installed here .*--runtime langchain --make-envs"
    with pytest.raises(ReproError, match=needs):
        reproduction("langchain", "1", case, differences, corpus.catalogue, Selection(), "c", "here")


# -- what a runtime makes of a response (process, stream) ------------------------------------------------

TOOL_CASE = "process.anthropic.messages.vector.anthropic_tool_use"
COMPACT = "8.5/arguments-compact-json"
EMPTY_DELTAS = "stream.anthropic.messages.empty-and-whitespace-text-deltas"
REFUSAL = "stream.anthropic.messages.refusal-stop-reason-raises"


def _result_difference(path, change, rules):
    return _difference(path, change, rules, subject="result")


def test_result_checks_read_the_place_the_list_of_an_item_and_the_whole_result_of_a_raise(corpus):
    found = result_checks(
        _case(corpus, EMPTY_DELTAS),
        [
            _result_difference("$[0]", "unexpected-item", ["8.5/stream-empty-text-not-yielded"]),
            _result_difference("$[3]", "unexpected-item", ["8.5/stream-empty-text-not-yielded"]),
            _result_difference("$", "raised", ["8.5/stream-text-deltas"]),
            _result_difference("$", "not-incremental", ["8.5/stream-text-deltas"]),  # the harness's reading
            _difference("$.model", "value", ["x"]),  # a request's: not this kind's
        ],
        corpus.catalogue,
        Selection(),
    )
    whole = ["a", " ", "\n", "b"]
    assert [(c.rule, c.path, c.change, c.expected, c.present) for c in found] == [
        ("8.5/stream-empty-text-not-yielded", "$", "value", whole, True),  # both items: the list, once
        ("8.5/stream-text-deltas", "$", "raised", whole, True),
    ]


def test_a_place_inside_a_matcher_is_checked_at_the_matcher_and_a_return_against_the_error(corpus):
    case = _case(corpus, "stream.anthropic.messages.start-input-used-without-deltas")
    found = result_checks(
        case,
        [
            _result_difference(
                "$[0].arguments['$json'].days", "missing-key", ["8.5/stream-tool-without-input-deltas"]
            )
        ],
        corpus.catalogue,
        Selection(),
    )
    assert [(c.path, c.expected) for c in found] == [("$[0].arguments", case.raw["expect"][0]["arguments"])]
    refusal = result_checks(
        _case(corpus, REFUSAL),
        [_result_difference("$", "returned", ["8.5/stream-refusal-raises"])],
        corpus.catalogue,
        Selection(),
    )
    assert [(c.change, c.expected) for c in refusal] == [("returned", "an error (refusal)")]


def test_the_findings_page_links_a_result_difference_a_script_checks_and_no_other(corpus):
    shows = reproducible(corpus)
    record = CaseRecord("litellm", "1", TOOL_CASE, "process", "anthropic.messages", [COMPACT], "failed", 0.0)
    assert shows(record, _result_difference("$[0].arguments", "value", [COMPACT]))
    assert not shows(record, _result_difference("$", "wrong-error", [COMPACT]))  # a category: the harness's
    assert not shows(replace(record, impl="nobody"), _result_difference("$[0].arguments", "value", [COMPACT]))
    mapping = replace(record, id="process.openai.chat.mapping-text", impl="prompty-ts")  # handed a dict
    assert not shows(mapping, _result_difference("$", "value", [COMPACT]))
    assert shows(replace(mapping, impl="prompty"), _result_difference("$", "value", [COMPACT]))  # its dict
    assert shows(replace(mapping, impl="litellm"), _result_difference("$", "value", [COMPACT]))  # reads HTTP


ANSWERED = """import urllib.request
with urllib.request.urlopen(urllib.request.Request(base_url + "/v1/x", data=b"{}", method="POST")) as got:
    answer = json.loads(got.read())
"""


def _result_script(tmp_path, returns, found, expected, *, stream=False, listed=False, body='{"items": [1]}'):
    """A script whose ``call`` reads the local server's answer (a recorded body of the test's making) and
    returns (or yields) ``returns``, an expression over it: the frame run for real."""
    tail = f"yield from {returns}" if stream else f"return {returns}"
    call = Call(("nothing",), "", ANSWERED + tail)
    frame = ResultFrame("t", "wireconf repro", "case", "here", stream=stream, listed=listed)
    text = render_result(frame, call, Answer(200, "application/json", body), expected, list(found))
    path = tmp_path / "repro.py"
    path.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=60)


ARGS = Check(COMPACT, "compact", "$[0].arguments", "value", {"$json": {"city": "Paris"}})


def test_a_result_script_serves_the_recorded_body_and_shows_the_rule_expected_and_actual(tmp_path):
    returns = '[{"id": "t", "name": "f", "arguments": json.dumps(answer["args"])}]'
    body = '{"args": {"city": "Berlin"}}'
    done = _result_script(tmp_path, returns, [ARGS], [{"arguments": {"$json": {"city": "Paris"}}}], body=body)
    assert done.returncode == 1, done.stderr
    assert f"{COMPACT}: compact\n  at $[0].arguments of the result" in done.stdout
    assert 'expected: {"$json": {"city": "Paris"}}\n  actual:   "{\\"city\\": \\"Berlin\\"}"' in done.stdout
    fixed = _result_script(tmp_path, returns, [ARGS], None, body='{"args": {"city": "Paris"}}')  # spaces too
    assert fixed.returncode == 0 and "all 1 difference(s) fixed" in fixed.stdout, fixed.stdout + fixed.stderr


def test_a_stream_script_judges_the_items_yielded_and_a_raise_after_some(tmp_path):
    items = Check("8.5/stream-empty-text-not-yielded", "no empty text", "$", "value", ["a", "b"])
    assert _result_script(tmp_path, '["", "a", "b"]', [items], ["a", "b"], stream=True).returncode == 1
    assert _result_script(tmp_path, '["a", "b"]', [items], ["a", "b"], stream=True).returncode == 0
    late = _result_script(tmp_path, '(1 / n and "a" for n in (1, 0))', [items], ["a", "b"], stream=True)
    assert (
        late.returncode == 1
        and 'it raised builtins.ZeroDivisionError: division by zero, after yielding ["a"]' in late.stdout
    )


def test_listed_keys_patterns_and_ids_match_as_the_harness_matches(tmp_path):
    returns = '{"id": "call_1", "name": "f", "extra": 1}'
    expected = {"id": {"$id": "a"}, "name": {"$pattern": "[a-z]"}}
    whole = Check("r", "s", "$", "value", expected)
    assert _result_script(tmp_path, returns, [whole], expected, listed=True).returncode == 0
    assert _result_script(tmp_path, returns, [whole], expected, listed=False).returncode == 1  # "extra"


def test_an_id_matcher_holds_one_id_per_name_and_never_another_names(tmp_path):
    """``{$id: name}`` (wireconf/judging/matchers.py): any non-empty id, the same for one name wherever it
    stands, a different one for each name; two calls sharing an id fail the second's check."""
    expected = [{"id": {"$id": "paris"}}, {"id": {"$id": "lyon"}}]
    second = Check("8.9/synthesised-ids-across-stream", "unique", "$[1].id", "value", {"$id": "lyon"})
    shared = _result_script(tmp_path, '[{"id": "f"}, {"id": "f"}]', [second], expected)
    assert shared.returncode == 1 and 'expected: {"$id": "lyon"}\n  actual:   "f"' in shared.stdout
    assert _result_script(tmp_path, '[{"id": "f"}, {"id": "g"}]', [second], expected).returncode == 0


def test_a_difference_of_the_async_processor_alone_is_not_checked_by_a_script(corpus):
    case = _case(corpus, TOOL_CASE)
    async_only = {**_result_difference("$", "returned", [COMPACT]), "variant": "process_async"}
    assert result_checks(case, [async_only], corpus.catalogue, Selection()) == []
    record = CaseRecord("litellm", "1", TOOL_CASE, "process", "anthropic.messages", [COMPACT], "failed", 0.0)
    assert not reproducible(corpus)(record, async_only)


def test_a_raise_before_any_request_shows_when_the_verdict_saw_that_class_raised(tmp_path):
    """A runtime that refuses the call before sending (LlamaIndex's unknown model) breaks a rule that
    expects a result: shown when the harness saw the same class raised, not judged otherwise."""

    def run(seen):
        check = Check("8.1/first-choice", "a result", "$", "raised", "Hello!", raised=seen)
        call = Call(("nothing",), "", 'raise ValueError("Unknown model")')
        frame = ResultFrame("t", "wireconf repro", "case", "here", stream=False, listed=False)
        text = render_result(frame, call, Answer(200, "application/json", "{}"), "Hello!", [check])
        path = tmp_path / "repro.py"
        path.write_text(text, encoding="utf-8")
        return subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=60)

    done = run("ValueError")
    assert done.returncode == 1 and "actual:   it raised builtins.ValueError: Unknown model" in done.stdout
    assert run("TypeError").returncode == 2  # another raise: not the one the verdict judged
    assert run("").returncode == 2


def test_a_return_fails_where_an_error_was_expected_and_any_raise_passes_it(tmp_path):
    returned = Check("8.5/stream-refusal-raises", "raises", "$", "returned", "an error (refusal)")
    done = _result_script(tmp_path, '["Here is how"]', [returned], None, stream=True)
    assert done.returncode == 1 and 'expected: an error (refusal)\n  actual:   ["Here is how"]' in done.stdout
    assert _result_script(tmp_path, "(1 / 0 for _ in [1])", [returned], None, stream=True).returncode == 0


# -- the JavaScript frame (node, no package: the call fetches the local server itself) --------------------

FETCHES = """const response = await fetch(baseURL + "/v1/x", { method: "POST", body: JSON.stringify(BODY) });
const answer = await response.json();"""


def _js(tmp_path, body, returns, found, mode="request", expected=None):
    node = shutil.which("node")
    if node is None:
        pytest.skip("node (Node.js) is not on PATH")
    call = JsCall("nothing", f"const BODY = {json.dumps(body)};", FETCHES + f"\nreturn {returns};")
    frame = JsFrame("t", "wireconf repro", CASE, "here", mode, listed=False)
    text = render_js(
        frame, call, Answer(200, "application/json", '{"args": "{\\"a\\": 1}"}'), expected, list(found)
    )
    path = tmp_path / "repro.mjs"
    path.write_text(text, encoding="utf-8")
    return subprocess.run([node, str(path)], capture_output=True, text=True, timeout=60, check=False)


def test_the_javascript_frame_judges_the_request_sent_as_the_python_one_does(tmp_path):
    done = _js(tmp_path, {"contents": [{"name": "f"}], "extra": 1}, "null", (ID, EXTRA))
    assert done.returncode == 1, done.stderr
    assert (
        'expected: "call_9"\n  actual:   nothing' in done.stdout
        and "expected: nothing\n  actual:   1" in done.stdout
    )
    assert _js(tmp_path, {"contents": [{"id": "call_9"}]}, "null", (ID, EXTRA)).returncode == 0


def test_the_javascript_frame_judges_a_result_with_the_cases_matchers(tmp_path):
    args = Check("r", "compact", "$[0].arguments", "value", {"$json": {"a": 1}})
    returns = '[{ id: "t", name: "f", arguments: answer.args }]'
    assert _js(tmp_path, {}, returns, [args], mode="result").returncode == 0  # spaces: the same JSON
    done = _js(tmp_path, {}, '[{ arguments: "{}" }]', [args], mode="result")
    assert done.returncode == 1 and 'expected: {"$json":{"a":1}}\n  actual:   "{}"' in done.stdout, (
        done.stdout
    )


# -- issue 36.1: the classes of root causes that had no reproduction ---------------------------------------


def _rejects(path, reason, schema="CreateChatCompletionRequest"):
    text = f"{path}: the provider's contract rejects this ({schema}): {reason}"
    return {
        "subject": "request",
        "path": path,
        "change": "provider-rejects",
        "text": text,
        "signature": f"request {path}: provider-rejects ({schema})",
        "rules": [],
        "basis": "provider-schema",
    }


def test_a_request_the_contract_rejects_is_checked_where_its_reason_names_a_testable_constraint(corpus):
    """The schema checker's reasons (``wireconf.judging.schema_check``) read back: a key the contract has
    not, one it requires, an enum, a JSON type; a union's reason (no member accepts it) is not a check
    without the best member's constraint beside it (``tests/unit/test_repro_union.py``)."""
    cases = {
        "the contract has no such key": {"absent": True},
        "required by the contract, and missing": {"present": True},
        "'mpeg' is not one of ['wav', 'mp3']": {"enum": ["wav", "mp3"]},
        "[] is not of type 'string'": {"type": "string"},
    }
    for reason, wanted in cases.items():
        check = contract_check(_rejects("$.x", reason))
        assert check is not None and (check.rule, check.path, check.change) == (
            "provider-contract",
            "$.x",
            "contract",
        )
        assert check.expected == wanted and reason in check.sentence
    assert (
        contract_check(_rejects("$.x", "no member of the union accepts it: 'a' is not one of ['b']")) is None
    )
    assert contract_check(_difference("$.x", "unexpected-key", ["r"])) is None
    shows = reproducible(corpus)
    record = CaseRecord(
        "prompty", "1", "wire.openai.chat.every-option-set", "wire", "openai.chat", [], "failed", 0.0
    )
    assert shows(record, _rejects("$.top_k", "the contract has no such key"))
    assert not shows(record, _rejects("$.top_k", "no member of the union accepts it: x"))
    kept = checks(
        _case(corpus, record.id),
        [_rejects("$.top_k", "the contract has no such key")],
        corpus.catalogue,
        Selection("provider-contract", "$.top_k"),
    )
    assert [(c.rule, c.path) for c in kept] == [("provider-contract", "$.top_k")]


def test_the_script_judges_a_place_against_the_contract(tmp_path):
    absent = Check("provider-contract", "no such key", "$.top_k", "contract", {"absent": True})
    enum = Check("provider-contract", "an enum", "$.format", "contract", {"enum": ["wav", "mp3"]})
    typed = Check("provider-contract", "a string", "$.prompt", "contract", {"type": "string"})
    required = Check("provider-contract", "required", "$.type", "contract", {"present": True})
    found = [absent, enum, typed, required]
    done = _script(tmp_path, {"top_k": 2, "format": "mpeg", "prompt": []}, found=found)
    assert done.returncode == 1 and "4 of 4 difference(s) still show" in done.stdout, done.stdout
    assert 'expected: one of ["wav", "mp3"]\n  actual:   "mpeg"' in done.stdout
    assert "expected: a value (the contract requires this key)\n  actual:   nothing" in done.stdout
    fixed = _script(tmp_path, {"format": "mp3", "prompt": "Hi", "type": "input_audio"}, found=found)
    assert fixed.returncode == 0, fixed.stdout
    assert _script(tmp_path, {"format": "mp3", "prompt": True, "type": 1}, found=[typed]).returncode == 1
    refused = "raise TypeError(\"Completions.create() got an unexpected keyword argument 'top_k'\")"
    assert _script(tmp_path, {}, sends=refused, found=[absent]).returncode == 1  # the SDK refused the key


E2E_RAISES = "e2e.openai.embeddings.options-not-sent"


def test_an_e2e_raise_before_sending_is_one_check_that_the_runtime_sends(corpus, tmp_path):
    """The verdict: no request sent (``requests``), and the runtime's raise where a result was expected:
    one check, citing the raise's class, linked only where the verdict says nothing was sent."""
    none = {
        "subject": "request",
        "path": "$",
        "change": "requests",
        "rules": ["7.2/api-type-embedding"],
        "text": "the runtime sent no request through the SDK client it was handed",
        "signature": "request $: requests",
    }
    raised = {
        "subject": "result",
        "path": "$",
        "change": "raised",
        "rules": ["8.2/vector-unchanged"],
        "text": "expected a result, but the adapter raised builtins.TypeError: no",
        "signature": "result $: raised (TypeError)",
    }
    case = _case(corpus, E2E_RAISES)
    found = checks(case, [none, raised], corpus.catalogue, Selection())
    assert [(c.rule, c.change, c.raised) for c in found] == [
        ("7.2/api-type-embedding", "raised", "TypeError"),
        ("8.2/vector-unchanged", "raised", "TypeError"),
    ]
    shows = reproducible(corpus)
    record = CaseRecord(
        "prompty", "1", E2E_RAISES, "e2e", "openai.embeddings", [], "failed", 0.0, differences=[none, raised]
    )
    assert shows(record, none) and shows(record, raised)
    sent = replace(record, differences=[raised])  # raised after sending: the recorded answer, served
    assert shows(sent, raised) and not shows(replace(sent, impl="ai-sdk"), raised)
    served = reproduction(
        "prompty", "1", case, [raised], corpus.catalogue, Selection(), "c", "here", CASES.parent / "cassettes"
    )
    assert "ANSWER = {'status': 200" in served and "'change': 'raised'" in served  # not the canned 400
    check = found[0]
    done = _script(
        tmp_path,
        {},
        sends='raise TypeError("create() got an unexpected keyword argument stream")',
        found=[check],
    )
    assert done.returncode == 1 and "the runtime sent no request: it raised builtins.TypeError" in done.stdout
    assert _script(tmp_path, {}, sends='raise ValueError("other")', found=[check]).returncode == 2
    assert _script(tmp_path, {}, found=[check]).returncode == 0  # it sends now


def test_a_place_inside_a_list_the_harness_aligned_is_checked_on_the_list(corpus):
    """Six states missing before three the runtime gave: the harness's places inside an item name the
    expected item, so the script checks the list, which a fix makes equal."""
    case = _case(corpus, "blocks.anthropic.messages.server-tool-is-not-a-block")
    rule = "blocks/server-tools-not-blocks"
    found = result_checks(
        case,
        [
            _result_difference("$[0]", "missing-item", ["blocks/state-per-chunk"]),
            _result_difference("$[6].blocks[0].arguments", "unexpected-key", [rule]),
        ],
        corpus.catalogue,
        Selection(rule),
    )
    assert [(c.path, c.expected) for c in found] == [("$", case.raw["expect"])]


def test_a_media_url_the_input_names_is_answered_by_the_script_and_any_other_host_refused(tmp_path):
    url = "https://example.com/cat.png"
    fetches = (
        f"""import urllib.request
import httpx
got = httpx.get({url!r})
BODY["image"] = [got.headers["content-type"], len(got.content)]
try:
    httpx.get("https://example.org/other.png")
except Exception as error:
    BODY["other"] = type(error).__name__
"""
        + SENDS
    )
    pytest.importorskip("httpx")
    call = Call(("nothing",), "import urllib.error\n\nBODY = {}", fetches)
    png = Check("r", "the image", "$.image", "value", ["image/png", 69])
    refused = Check("r", "offline", "$.other", "value", "ConnectError")
    text = render(
        title="t",
        command="c",
        case_id=CASE,
        location="here",
        call=call,
        answer=Answer(400, "application/json", "{}"),
        checks=[png, refused],
        aliases=False,
        media={url: "image/png"},
    )
    path = tmp_path / "repro.py"
    path.write_text(text, encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_difference_of_the_async_processor_alone_is_checked_by_calling_it_where_a_template_can(corpus):
    """LlamaIndex's ``achat`` (the adapter's ``process_async``) differs where ``chat`` does not: the script
    calls ``achat``; a runtime without an async template is not linked."""
    case = _case(corpus, "process.openai.responses.messages-concatenated-without-separator")
    rule = "8.4/output-text-concatenated"
    async_value = {**_result_difference("$", "value", [rule]), "variant": "process_async"}
    assert result_checks(case, [async_value], corpus.catalogue, Selection()) == []
    found = result_checks(case, [async_value], corpus.catalogue, Selection(), asynchronous=True)
    assert [(c.path, c.expected) for c in found] == [("$", "First.Second.")]
    shows = reproducible(corpus)
    record = CaseRecord("llamaindex", "1", case.id, "process", "openai.responses", [], "failed", 0.0)
    assert shows(record, async_value)
    assert not shows(replace(record, impl="litellm"), async_value)


def test_a_trace_case_of_execute_that_raised_before_sending_is_linked_as_an_e2e_raise(corpus):
    """``trace.openai.images.execute-span``: prompty raised before sending, so no span was made; the
    script calls ``execute`` as an e2e case's does and shows the raise until the runtime sends."""
    case = _case(corpus, "trace.openai.images.execute-span")
    none = {
        "subject": "request", "path": "$", "change": "requests", "rules": ["7.3/api-type-image"],
        "text": "the runtime sent no request through the SDK client it was handed",
        "signature": "request $: requests",
    }  # fmt: skip
    raised = {
        "subject": "spans", "path": "$", "change": "raised", "rules": ["7.1.8/execute-span"],
        "text": "the execute call raised builtins.TypeError: no", "signature": "spans $: raised (TypeError)",
    }  # fmt: skip
    missing = {**_result_difference("$[0]", "missing-item", ["7.1.8/execute-span"]), "subject": "spans"}
    found = checks(case, [none, raised, missing], corpus.catalogue, Selection())
    assert [(c.rule, c.change) for c in found] == [
        ("7.3/api-type-image", "raised"),
        ("7.1.8/execute-span", "raised"),
    ]
    shows = reproducible(corpus)
    record = CaseRecord(
        "prompty", "1", case.id, "trace", "openai.images", [], "failed", 0.0, differences=[none, raised]
    )
    assert shows(record, raised) and not shows(record, missing)
    assert not shows(replace(record, differences=[raised]), raised)  # it sent: the spans are judged, not this
    process = replace(record, id="trace.openai.images.process-async-span")  # no execute: nothing sent anyway
    assert not shows(process, raised)


def test_the_items_a_stream_yields_before_the_error_it_ends_with_are_checked(tmp_path, corpus):
    """``expect_error.yielded``: a stream that must yield a partial image before it fails; a buffering
    runtime yields nothing and raises, which shows; yielding the item first fixes it."""
    case = _case(corpus, "stream.openai.images.partial-image-yielded-before-the-stream-fails")
    difference = {
        **_result_difference("$[0]", "missing-item", ["8.3/stream-incremental"]),
        "subject": "yielded-before-error",
    }
    (check,) = result_checks(case, [difference], corpus.catalogue, Selection())
    assert (check.path, check.change, check.expected) == ("$", "yielded", ["UEFSVElBTC0w"])
    record = CaseRecord("prompty", "1", case.id, "stream", "openai.images", [], "failed", 0.0)
    assert reproducible(corpus)(record, difference)
    buffered = _result_script(tmp_path, "(1 / 0 for _ in [1])", [check], None, stream=True)
    assert buffered.returncode == 1, buffered.stdout
    assert "[] yielded, then it raised builtins.ZeroDivisionError" in buffered.stdout
    first = '("UEFSVElBTC0w" if i == 0 else 1 / 0 for i in range(2))'
    assert _result_script(tmp_path, first, [check], None, stream=True).returncode == 0
    assert (
        _result_script(tmp_path, '["UEFSVElBTC0w"]', [check], None, stream=True).returncode == 1
    )  # no error


def test_an_error_of_another_category_shows_until_the_runtime_raises_one_of_the_expected(tmp_path, corpus):
    """``wrong-error``: LlamaIndex raises RuntimeError on a safety finish where §8.8 raises ValueError
    (category blocked): the script reads the class raised as the harness does (``error_categories``);
    an adapter's outcome is not a runtime's class and is not reproduced, but NoResult, LiteLLM's return
    without a choice, which the script shows as that return."""
    case = _case(corpus, "process.gemini.generate_content.safety-finish-raises")
    wrong = {
        **_result_difference("$", "wrong-error", ["8.8/blocked-finish-raises"]),
        "signature": "result $: wrong-error (uncategorised RuntimeError for blocked)",
    }
    assert result_checks(case, [wrong], corpus.catalogue, Selection()) == []  # a JavaScript frame's
    (check,) = result_checks(case, [wrong], corpus.catalogue, Selection(), categories=True)
    assert (check.change, check.expected, check.raised) == (
        "category",
        {"category": "blocked", "status": None},
        "RuntimeError",
    )
    shows = reproducible(corpus)
    record = CaseRecord("llamaindex", "1", case.id, "process", "gemini.generate_content", [], "failed", 0.0)
    assert shows(record, wrong)
    assert shows(replace(record, impl="ai-sdk"), wrong)  # read by the adapter's table, inlined
    assert not shows(replace(record, impl="prompty-ts"), wrong)  # a JavaScript runtime without one
    # NoResult: the adapter's word for a return without a choice, shown as that return; another outcome
    # (no request sent) is the adapter's doing, not reproduced
    returned = {**wrong, "signature": "result $: wrong-error (uncategorised NoResult for empty-response)"}
    assert shows(record, returned)
    outcome = {**wrong, "signature": "result $: wrong-error (uncategorised NoRequestSent for blocked)"}
    assert not shows(record, outcome)
    no_result = {
        **_result_difference("$", "raised", ["8.8/no-text-empty-string"]),
        "signature": "result $: raised (NoResult)",
    }
    (returned_check,) = result_checks(case, [no_result], corpus.catalogue, Selection())
    assert (returned_check.change, returned_check.path) == ("value", "$")  # what it returned, judged
    done = _result_script(tmp_path, "(_ for _ in ()).throw(RuntimeError('terminated early'))", [check], None)
    assert (
        done.returncode == 1
        and "expected: an error of category blocked (in Python: ValueError)" in done.stdout
    )
    assert (
        _result_script(tmp_path, "(_ for _ in ()).throw(ValueError('blocked'))", [check], None).returncode
        == 0
    )
    assert _result_script(tmp_path, "'text'", [check], None).returncode == 1  # returned: no error at all


def test_a_wire_raise_of_another_category_shows_until_the_runtime_refuses_the_input_as_the_rule_says(
    tmp_path, corpus
):
    """LlamaIndex raises KeyError for a tool message without an id, where §7.5 refuses the input
    (invalid-input, ValueError in Python): the wire script reads the raise as the harness does, and a
    request sent is no refusal either."""
    case = _case(corpus, "wire.anthropic.messages.tool-message-without-id-raises")
    wrong = {
        **_difference("$", "wrong-error", ["7.5/tool-result-message"], subject="result"),
        "signature": "result $: wrong-error (uncategorised KeyError for invalid-input)",
    }
    (check,) = checks(case, [wrong], corpus.catalogue, Selection())
    assert (check.change, check.expected, check.raised) == (
        "category",
        {"category": "invalid-input", "status": None},
        "KeyError",
    )
    record = CaseRecord("llamaindex", "1", case.id, "wire", "anthropic.messages", [], "failed", 0.0)
    assert reproducible(corpus)(record, wrong)
    done = _script(tmp_path, {}, sends="raise KeyError('tool_call_id')", found=[check])
    assert done.returncode == 1, done.stdout
    assert "expected: an error of category invalid-input (in Python: ValueError or TypeError)" in done.stdout
    assert "actual:   it raised builtins.KeyError: 'tool_call_id'" in done.stdout
    assert _script(tmp_path, {}, sends="raise ValueError('no id')", found=[check]).returncode == 0
    sent = _script(tmp_path, {"messages": []}, found=[check])  # it sends: no refusal at all
    assert sent.returncode == 1 and "raised before any request" in sent.stdout


def test_the_javascript_frame_reads_a_raise_in_the_adapters_categories(tmp_path):
    """The AI SDK's scripts read a raise as its adapter does: its CATEGORIES table, taken from
    server.mjs (the class and an APICallError's statusCode), and an error that carries its category
    (the adapter's reading of a stream's error part)."""
    from wireconf.repro.js_templates import categories_code

    table = categories_code()
    assert '[InvalidPromptError, "invalid-input"]' in table and "error.statusCode >= 400" in table
    assert table.rstrip().endswith('(await import("ai"));')
    check = Check(
        "8.4/error-raises", "raises", "$", "category", {"category": "provider-error", "status": None}
    )
    plain = _js(
        tmp_path, {}, '(() => { throw new Error("Invalid JSON response"); })()', [check], mode="result"
    )
    assert plain.returncode == 1, plain.stderr
    assert "expected: an error of category provider-error" in plain.stdout
    assert (
        "actual:   it raised Error: Invalid JSON response, read as none of the spec's errors" in plain.stdout
    )
    reported = '(() => { throw Object.assign(new Error("failed"), { category: "provider-error" }); })()'
    assert _js(tmp_path, {}, reported, [check], mode="result").returncode == 0
    assert _js(tmp_path, {}, '"text"', [check], mode="result").returncode == 1  # returned: no error


TRACED = """from opentelemetry import trace
with trace.get_tracer("runtime").start_as_current_span("chat") as span:
    span.set_attributes(ATTRIBUTES)
    span.set_attribute("not.gen_ai", 1)
with trace.get_tracer("runtime").start_as_current_span("http"):
    pass"""


def test_a_trace_of_execute_captures_the_gen_ai_spans_with_the_sdks_exporter_until_they_are_the_expected(
    tmp_path, corpus
):
    """prompty emits its execute span without ``gen_ai.response.finish_reasons``: the script runs the
    call under the OpenTelemetry SDK's in-memory exporter, its tracing switched on as the adapter does,
    and judges the spans with gen_ai attributes on the attributes the case lists."""
    from wireconf.repro.trace_templates import traced_call

    case = _case(corpus, "trace.anthropic.messages.default-max-tokens")
    missing = {**_difference("$[0]", "missing-item", ["7.1.8/execute-span"], subject="spans")}
    record = CaseRecord(
        "prompty", "1", case.id, "trace", "anthropic.messages", [], "failed", 0.0, differences=[missing]
    )
    shows = reproducible(corpus)
    assert shows(record, missing) and not shows(replace(record, impl="langchain"), missing)
    text = reproduction(
        "prompty",
        "1",
        case,
        [missing],
        corpus.catalogue,
        Selection(),
        "c",
        "here",
        CASES.parent / "cassettes",
    )
    assert "InMemorySpanExporter" in text and 'Tracer.add("otel", otel_tracer())' in text
    assert "ANSWER = {'status': 200" in text and "'change': 'value'" in text
    expected = to_plain(case.raw["expect"])
    check = Check("7.1.8/execute-span", "one span", "$", "value", expected)

    def run(attributes):
        call = traced_call("other", Call(("nothing",), f"ATTRIBUTES = {attributes!r}", TRACED))
        frame = ResultFrame("t", "wireconf repro", case.id, "here", stream=False, listed=True)
        path = tmp_path / "repro.py"
        path.write_text(render_result(frame, call, Answer(200, "application/json", "{}"), expected, [check]))
        return subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=60)

    wanted = dict(expected[0]["attributes"])
    assert run(wanted).returncode == 0  # the attributes listed, an extra non-gen_ai one and a plain span
    del wanted["gen_ai.response.finish_reasons"]
    done = run(wanted)
    assert done.returncode == 1 and "7.1.8/execute-span: one span" in done.stdout, done.stdout
