"""One explanation per root cause (issue 36, item 4): a baseline explains each rule a case breaks
(``explanations``), an old baseline's one reason per case is read as the explanation of the rule it leads
with only, a row whose explanation only repeats the diff says "not yet explained", and an update keeps an
explanation only while it is true of its rule's difference. And the view per rule across runtimes
(item 5): which runtimes break a rule, and the rules most of them break as questions for the spec's
authors."""

from __future__ import annotations

import re

import pytest

from tests.conftest import CASES
from wireconf.corpus.rules import load_catalogue
from wireconf.reports.baseline import BaselineError, load_baseline
from wireconf.reports.findings import (
    EXPLANATIONS,
    NOT_EXPLAINED,
    NOT_PROVED,
    PROVED,
    explanation_of,
    render_findings,
    repeats_the_diff,
)
from wireconf.reports.findings_proofs import Proof, text_hash
from wireconf.reports.findings_rules import is_question, readings, render_rules_view
from wireconf.reports.jsonl import CaseRecord
from wireconf.reports.reason_check import true_explanations

IDS = "7.9.1/tool-call-ids-sent"
KEYS = "7.9.7/no-other-keys"
ID_LOST = "`_parse_chat_history` writes each tool call as `FunctionCall(name, args)`, leaving its id out."
EXTRA = "`_prepare_request` always adds an empty safetySettings list, a key the agent never set."


@pytest.fixture(scope="module")
def catalogue():
    return load_catalogue(CASES / "rules.yaml")


def _difference(path, rule, change="missing-key"):
    return {
        "subject": "request",
        "path": path,
        "change": change,
        "text": f"{path}: {change.replace('-', ' ')} (expected 1)",
        "signature": f"request {re.sub(r'[0-9]+', '*', path)}: {change}",
        "rules": [rule],
        "tier": "project",
    }


def _record(case_id, reason, differences, impl="rt", explanations=None, status="failed"):
    record = CaseRecord(
        impl, "1.0", case_id, "wire", "gemini.generate_content", [IDS, KEYS], status, 0.0,
        "expected" if status == "failed" else None, reason, "diff", differences=differences,
    )  # fmt: skip
    if explanations is not None:
        record.extra[EXPLANATIONS] = explanations
    return record


def _both(case_id="c1", reason=f"{IDS}: {EXTRA}", explanations=None):
    """A case breaking both rules whose one reason (an old baseline's) leads with IDS but explains KEYS:
    LangChain's `7.9.1/tool-call-ids-sent` rows before this change."""
    found = [
        _difference("$.contents[1].parts[0].functionCall.id", IDS),
        _difference("$.safetySettings", KEYS, "unexpected-key"),
    ]
    return _record(case_id, reason, found, explanations=explanations)


def _difference_rows(page):
    section = page.split("### Root causes by difference", 1)[1].split("### Cases by baseline reason\n", 1)[0]
    return [line for line in section.splitlines() if re.match(r"\| \d+ \|", line)]


def test_an_old_reason_explains_only_the_rule_it_leads_with():
    record = _both(reason=f"{KEYS}: {EXTRA}")
    assert explanation_of(record, [KEYS]) == EXTRA
    assert explanation_of(record, [IDS]) is None  # never another rule's text


def test_the_baselines_explanation_of_a_rule_comes_first():
    record = _both(explanations={IDS: ID_LOST, KEYS: EXTRA})
    assert (explanation_of(record, [IDS]), explanation_of(record, [KEYS])) == (ID_LOST, EXTRA)


def test_a_page_row_never_shows_the_explanation_of_another_rule_of_its_case(catalogue):
    wrong = render_findings([_both(reason=f"{KEYS}: {EXTRA}")], catalogue, [], "wireconf findings", 1)
    rows = {row.split(" | ")[1]: row for row in _difference_rows(wrong)}
    assert EXTRA in rows[f"`{KEYS}`"] and EXTRA not in rows[f"`{IDS}`"]
    assert NOT_EXPLAINED in rows[f"`{IDS}`"]
    right = render_findings([_both(explanations={IDS: ID_LOST})], catalogue, [], "wireconf findings", 1)
    rows = {row.split(" | ")[1]: row for row in _difference_rows(right)}
    assert ID_LOST in rows[f"`{IDS}`"]


@pytest.mark.parametrize(
    ("text", "repeats"),
    [
        ("$.contents[1].parts[0].functionCall.id: missing key (expected 1)", True),
        (
            "`litellm.factory:convert_to_gemini_tool_call_invoke`: $.contents[1].parts[0].functionCall.id: "
            "missing key",
            True,
        ),
        (f"{IDS}, `f`", True),
        (
            "`@ai-sdk/openai` `M.doStream` (through `ai` `streamText`'s fullStream) gives these items: $[1]: "
            'expected "title", got "t"',
            True,
        ),
        (
            "`@ai-sdk/google` `M.doGenerate` (through `ai` `generateText`) gives this result: expected the "
            'adapter to raise ValueError, but it returned a result: ""',
            True,
        ),
        (
            "`VertexGeminiConfig` always sends `generationConfig`, `{}` when no option is set.: "
            "$.generationConfig: unexpected key (got {})",
            False,
        ),
        (ID_LOST, False),
        (EXTRA + ": $.safetySettings: unexpected key (got [])", False),
    ],
)
def test_an_explanation_that_only_names_a_function_and_repeats_the_diff_is_not_one(text, repeats):
    assert repeats_the_diff(text) is repeats


def test_a_row_whose_explanation_repeats_the_diff_says_not_yet_explained(catalogue):
    record = _both(reason=f"{IDS}: `f`: $.contents[1].parts[0].functionCall.id: missing key (expected 1)")
    assert explanation_of(record, [IDS]) is None
    page = render_findings([record], catalogue, [], "wireconf findings", 1)
    assert all(NOT_EXPLAINED in row for row in _difference_rows(page))


def test_an_update_keeps_an_explanation_only_while_its_rule_is_broken_and_its_quote_shown():
    differences = _both().differences
    kept = {
        IDS: ID_LOST,
        KEYS: EXTRA + ": $.safetySettings: unexpected key (expected 1)",
        "7.9.5/empty-generation-config-omitted": "no longer broken",
        "x/y": "$.gone: missing key (expected 2) is what it said",
    }
    assert true_explanations(kept, differences) == {IDS: ID_LOST, KEYS: kept[KEYS]}
    assert true_explanations(kept, []) == kept  # nothing to check against


def test_a_baseline_reads_and_writes_explanations_per_case_and_rule(tmp_path):
    path = tmp_path / "rt.yaml"
    path.write_text(
        "impl: rt\nexpected_failures:\n  c1: 'reason'\n"
        f"explanations:\n  c1: {{{IDS}: 'why'}}\n  c2: {{{KEYS}: 'gone: the case passes'}}\n",
        encoding="utf-8",
    )
    baseline = load_baseline(path)
    assert baseline.explanations == {"c1": {IDS: "why"}, "c2": {KEYS: "gone: the case passes"}}
    baseline.save()
    assert load_baseline(path).explanations == {"c1": {IDS: "why"}}  # only the cases still failing
    path.write_text("expected_failures: {c1: r}\nexplanations: {c1: [why]}\n", encoding="utf-8")
    with pytest.raises(BaselineError, match="`explanations` must map case ids"):
        load_baseline(path)


def _rule_records(breaking, passing):
    out = []
    for name in breaking:
        out.append(
            _record("c1", None, [_difference("$.contents[1].parts[0].functionCall.id", IDS)], impl=name)
        )
    for name in passing:
        out.append(_record("c1", None, [], impl=name, status="passed"))
    return out


def test_a_rule_most_runtimes_break_is_a_question_and_one_few_break_is_not():
    found = readings(_rule_records(["a", "b", "c"], ["d"]))
    assert sorted(n for n, r in found[IDS].items() if r.broken) == ["a 1.0", "b 1.0", "c 1.0"]
    assert is_question(found[IDS])
    assert not is_question(readings(_rule_records(["a", "b"], ["d"]))[IDS])  # fewer than three
    assert not is_question(readings(_rule_records(["a", "b", "c"], ["d", "e", "f"]))[IDS])  # not most


def test_the_rules_view_gives_the_spec_sentence_the_reading_and_each_runtimes_difference(catalogue):
    records = _rule_records(["a", "b", "c"], ["d"])
    records[0].extra[EXPLANATIONS] = {IDS: ID_LOST}
    text = "\n".join(render_rules_view(records, catalogue))
    question = text.split("### Questions for the spec's authors", 1)[1].split("### Which runtimes", 1)[0]
    assert f"#### `{IDS}`: broken by 3 of the 4 runtimes judged on it" in question
    assert f"The project's reading [MUST, project]: {catalogue.rules[IDS].statement}" in question
    assert (
        "- a 1.0 (1 of 1 case(s)): `$.contents[1].parts[0].functionCall.id: missing key (expected 1)`. "
        f"Why: {NOT_PROVED}{ID_LOST}" in question  # no proof: never shown as a plain explanation
    )
    assert "- b 1.0 (1 of 1 case(s))" in question and "Why: not yet explained." in question
    assert "Judged on it and never breaking it: d 1.0." in question
    assert f"| `{IDS}` | 3 of 4 | a 1.0: `$.contents[1]" in text
    place = "$.contents[*].parts[*].functionCall.id"
    proof = Proof("c1", IDS, place, 1, True, text_hash(ID_LOST), {"m:_parse_chat_history": True})
    always = lambda record, difference: True  # noqa: E731 - every difference has a script here
    proofs = {"a": {("1.0", "c1", IDS, place): proof}}
    proved = "\n".join(render_rules_view(records, catalogue, always, proofs))
    assert f"Why: {ID_LOST}{PROVED}" in proved  # as the root cause's row says it


def test_an_old_reason_explains_the_place_it_names_among_its_rules_places():
    typed = "`_construct_responses_api_input` writes every message as `{type: message}`; the rule sends none."
    found = [
        _difference("$.input[0].type", KEYS, "unexpected-key"),
        _difference("$.stream", KEYS, "unexpected-key"),
    ]
    record = _record("c1", f"{KEYS}: {typed}", found)
    assert explanation_of(record, [KEYS], "$.input[*].type") == typed
    assert explanation_of(record, [KEYS], "$.stream") is None  # another difference of the same rule
    record.extra[EXPLANATIONS] = {f"{KEYS} $.stream": "`_get_request_payload` always sends the stream flag."}
    assert (
        explanation_of(record, [KEYS], "$.stream") == "`_get_request_payload` always sends the stream flag."
    )
    assert explanation_of(record, [KEYS], "$") == typed  # no key to name: the result, a raise


def test_an_old_reason_naming_no_key_of_the_difference_does_not_explain_it():
    found = [_difference("$.contents[0].parts[0].inlineData.mimeType", IDS)]
    assert (
        explanation_of(
            _record("c1", f"{IDS}: {EXTRA}", found), [IDS], "$.contents[*].parts[*].inlineData.mimeType"
        )
        is None
    )
    why = "`_convert_to_parts` writes the media type under its proto name `mime_type`, read alike."
    assert (
        explanation_of(
            _record("c1", f"{IDS}: {why}", found), [IDS], "$.contents[*].parts[*].inlineData.mimeType"
        )
        == why
    )


def test_an_update_keeps_an_explanation_of_one_root_cause_while_its_rule_is_broken_at_its_place():
    """A root cause's explanation is keyed ``<rule> <place>`` (the rule at a generic path), as the findings
    page files it; an update keeps it while the failure breaks that rule there, not merely somewhere."""
    differences = _both().differences
    kept = {
        f"{IDS} $.contents[*].parts[*].functionCall.id": ID_LOST,
        f"{KEYS} $.safetySettings": EXTRA,
        f"{KEYS} $.generationConfig": "the rule is broken, but no longer at this place",
        f"{IDS} $.safetySettings": "this place, but under another rule",
    }
    assert true_explanations(kept, differences) == {
        f"{IDS} $.contents[*].parts[*].functionCall.id": ID_LOST,
        f"{KEYS} $.safetySettings": EXTRA,
    }
