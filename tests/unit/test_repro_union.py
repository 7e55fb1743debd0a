"""A request no member of whose contract union accepts a value (issue 36.1): the judge keeps the union's
reason, every member's words, and records beside it the one constraint of the member that matches best
(``contract.Problem.best``, carried by the difference into the report), which ``wireconf repro`` checks
at its own place, as it checks a reject whose reason is one constraint."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from wireconf.judging.attribution import Attribution
from wireconf.judging.schema_check import problems, rejections
from wireconf.repro.build import contract_check
from wireconf.repro.script import Answer, Call, Check, render

USER = {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}


def _responses(*content: dict[str, Any], role: str = "user") -> dict[str, Any]:
    return {"model": "m", "input": [USER, {"role": role, "content": list(content)}]}


def _best(api: str, body: dict[str, Any], shape: str = "object") -> tuple[str, str] | None:
    (problem,) = problems(api, body)
    assert problem.message.startswith("no member of the union accepts it: ")  # the reason, unchanged
    if problem.best is None:
        return None
    place, reason, kind = problem.best
    assert kind == shape  # the JSON type of the value no member accepts
    return place, reason


def test_the_member_its_tag_and_keys_select_gives_the_one_constraint() -> None:
    # the model's output part in a user message (EasyInputMessage): every member refuses the tag; the one
    # that declares both keys (InputTextContent) is the one a reader picks
    body = _responses({"type": "output_text", "text": "yo"})
    assert _best("openai.responses", body) == (
        "$.input[1].content[0].type",
        "'output_text' is not one of ['input_text']",
    )
    # and an input part in an assistant message (the contract's correction: output_text or refusal)
    back = _responses({"type": "input_text", "text": "yo"}, role="assistant")
    assert _best("openai.responses", back) == (
        "$.input[1].content[0].type",
        "'input_text' is not one of ['output_text']",
    )
    # Chat Completions' part shapes in Responses: the member that declares the part's keys
    text = _responses({"type": "text", "text": "hi"})
    assert _best("openai.responses", text) == (
        "$.input[1].content[0].type",
        "'text' is not one of ['input_text']",
    )
    image = _responses({"type": "image_url", "image_url": {"url": "https://example.com/a.png"}})
    place, reason = _best("openai.responses", image) or ("", "")
    assert (
        place.startswith("$.input[1].content[0].")
        and "input_text" not in reason
        and "input_file" not in reason
    )
    file = _responses({"type": "file", "file": {"file_data": "eA=="}})
    assert _best("openai.responses", file) == (
        "$.input[1].content[0].type",
        "'file' is not one of ['input_file']",
    )


def test_a_value_of_the_type_one_member_wants_is_judged_by_that_member() -> None:
    # an array where a string or a non-empty array is wanted: the array member's minItems
    chat = {"model": "m", "messages": [{"role": "user", "content": []}]}
    assert _best("openai.chat", chat, "array") == ("$.messages[0].content", "[] should be non-empty")
    # a function call's output as Chat parts: the array member, and its first part's tag
    output = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}
    body = {"model": "m", "input": [call, {"type": "function_call_output", "call_id": "c", "output": output}]}
    assert _best("openai.responses", body, "array") == (
        "$.input[1].output[0].type",
        "'text' is not one of ['input_text']",
    )


def _run(check: Check, tmp_path: Any, sent: Any) -> subprocess.CompletedProcess[str]:
    call = Call(("nothing",), f"BODY = {sent!r}", SENDS)
    script = render(
        title="t",
        command="wireconf repro",
        case_id="c",
        location="here",
        call=call,
        answer=Answer(400, "application/json", '{"error": {}}'),
        checks=[check],
        aliases=False,
    )
    path = tmp_path / "repro.py"
    path.write_text(script, encoding="utf-8")
    return subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=60)


SENDS = """import urllib.error, urllib.request
request = urllib.request.Request(base_url + "/v1/x", data=json.dumps(BODY).encode(), method="POST")
try:
    urllib.request.urlopen(request)
except urllib.error.HTTPError:
    pass"""


def test_the_report_carries_the_constraint_and_the_script_checks_it_at_its_place(tmp_path: Any) -> None:
    sent = _responses({"type": "output_text", "text": "yo"})
    expected = _responses({"type": "input_text", "text": "yo"})
    (difference,) = rejections("openai.responses", sent, expected)
    data = Attribution(difference, (), "provider-schema", None, "openai.responses").to_data()
    assert data["path"] == "$.input[1].content[0]" and "no member of the union" in data["text"]
    assert data["constraint"] == {
        "path": "$.input[1].content[0].type",
        "reason": "'output_text' is not one of ['input_text']",
        "shape": "object",
    }
    check = contract_check(data)
    assert check is not None
    assert (check.rule, check.path, check.change, check.expected) == (
        "provider-contract",
        "$.input[1].content[0].type",
        "contract",
        {"enum": ["input_text"], "union": {"path": "$.input[1].content[0]", "shape": "object"}},
    )
    shown = _run(check, tmp_path, sent)
    assert shown.returncode == 1, shown.stdout + shown.stderr
    assert 'expected: one of ["input_text"]\n  actual:   "output_text"' in shown.stdout
    assert _run(check, tmp_path, expected).returncode == 0
    # a report written before the constraint was recorded: no check, as before
    assert contract_check({k: v for k, v in data.items() if k != "constraint"}) is None


def test_an_empty_array_is_checked_against_min_items_a_string_passes(tmp_path: Any) -> None:
    sent = {"model": "m", "messages": [{"role": "user", "content": []}]}
    (difference,) = rejections(
        "openai.chat", sent, {"model": "m", "messages": [{"role": "user", "content": ""}]}
    )
    check = contract_check(Attribution(difference, (), "provider-schema", None).to_data())
    assert check is not None and check.path == "$.messages[0].content"
    assert check.expected == {"min_items": 1, "union": {"path": "$.messages[0].content", "shape": "array"}}
    assert _run(check, tmp_path, sent).returncode == 1
    assert _run(check, tmp_path, {"messages": [{"content": ""}]}).returncode == 0
    assert _run(check, tmp_path, {"messages": [{"content": [{"type": "text", "text": "x"}]}]}).returncode == 0


def test_verify_runs_only_the_root_causes_case_rule_and_path_select() -> None:
    import argparse

    from wireconf.commands.repro import _selected

    every = argparse.Namespace(case_id=None, rule=None, path=None)
    assert _selected(every, "wire.x", "r", "$.a")
    rule = argparse.Namespace(case_id=None, rule="provider-contract", path=None)
    assert _selected(rule, "wire.x", "provider-contract", "$.a") and not _selected(rule, "wire.x", "r", "$.a")
    case = argparse.Namespace(case_id="wire.y", rule=None, path="$.a")
    assert _selected(case, "wire.y", "r", "$.a")
    assert not _selected(case, "wire.x", "r", "$.a") and not _selected(case, "wire.y", "r", "$.b")


def test_a_union_value_of_another_json_type_is_no_longer_judged_by_the_member_it_matched(
    tmp_path: Any,
) -> None:
    """A function call's output sent as Chat parts, judged by the array member's first part's tag; sent
    as a string (the string member's shape), that check holds: the script exits 0, not 1."""
    call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}
    output = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    sent = {"model": "m", "input": [call, {"type": "function_call_output", "call_id": "c", "output": output}]}
    fixed = {"model": "m", "input": [call, {"type": "function_call_output", "call_id": "c", "output": "a"}]}
    (difference,) = rejections("openai.responses", sent, fixed)
    check = contract_check(Attribution(difference, (), "provider-schema", None).to_data())
    assert check is not None and check.path == "$.input[1].output[0].type"
    assert _run(check, tmp_path, sent).returncode == 1
    assert _run(check, tmp_path, fixed).returncode == 0
    parts = [{"type": "input_text", "text": "a"}]
    assert _run(check, tmp_path, {"input": [call, {"output": parts}]}).returncode == 0
    assert _run(check, tmp_path, {"input": [call, {"output": [{"type": "text"}]}]}).returncode == 1
