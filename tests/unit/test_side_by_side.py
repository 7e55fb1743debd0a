"""Two runtimes of one specification side by side (the findings page's last section): which cases they
disagree on, and which of them the rule broken supports."""

from __future__ import annotations

from wireconf.reports.jsonl import CaseRecord
from wireconf.reports.side_by_side import behaviour, compare, render

RAISED_PY = (
    "expected a request body, but the adapter raised builtins.ValueError: tools[0].connection: missing\n"
    '  traceback (adapter frames):\n    File "prompty/model.py", line 3, in load'
)
RAISED_TS = (
    "expected a request body, but the adapter raised remote.Error: tools[0].connection: missing\n"
    "  traceback (adapter frames):\n    Error: tools[0].connection: missing\n        at load (x.js:1:2)"
)


def record(impl: str, case: str, status: str, diff: str | None = None) -> CaseRecord:
    return CaseRecord(impl, "1", case, "wire", "openai.chat", ["7.1.1/role-copied"], status, 0.0, diff=diff)


def test_the_same_failure_in_two_languages_is_agreement():
    python, typescript = record("py", "c", "failed", RAISED_PY), record("ts", "c", "failed", RAISED_TS)
    assert behaviour(python) == behaviour(typescript)
    assert "traceback" not in behaviour(python) and "ValueError" not in behaviour(python)


def test_disagreements_are_counted_by_outcome_and_only_on_cases_both_judge(corpus):
    records = [
        record("py", "a", "passed"),
        record("ts", "a", "passed"),
        record("py", "b", "failed", RAISED_PY),
        record("ts", "b", "failed", RAISED_TS),
        record("py", "c", "passed"),
        record("ts", "c", "failed", "$.x: expected 1, got 2"),
        record("py", "d", "failed", "$.x: expected 1, got 3"),
        record("ts", "d", "failed", "$.x: expected 1, got 2"),
        record("py", "e", "passed"),
        record("ts", "e", "unsupported"),
    ]
    comparison = compare(records, "py", "ts")
    assert comparison is not None
    assert (comparison.both_pass, comparison.same_failure) == (1, 1)
    assert [d.case for d in comparison.disagreements] == ["c", "d"]
    assert comparison.count("passed", "failed") == 1 and comparison.count("failed", "failed") == 1
    assert compare(records, "py", "nobody") is None

    text = "\n".join(render(comparison, corpus.catalogue, {"py": "py 1", "ts": "ts 1"}))
    assert "they agree on 2" in text and "disagree on 2" in text
    assert "| `c` | passes | fails: `$.x: expected 1, got 2` | py (the spec's pseudocode) |" in text
    assert "| `d` | fails: `$.x: expected 1, got 3` | fails: `$.x: expected 1, got 2` | neither (" in text


def test_the_last_column_says_which_gap_of_the_text_a_decision_fills(corpus):
    """Not "the spec is silent" for every decision: each rule's own `gap` (docs/rules.md)."""
    from types import SimpleNamespace

    from wireconf.reports.side_by_side import rule_basis

    assert rule_basis(SimpleNamespace(basis="decision", gap="ambiguous")) == (
        "project decision: the spec is ambiguous"
    )
    assert rule_basis(SimpleNamespace(basis="decision", gap="conflicting")) == (
        "project decision: the spec contradicts itself"
    )
    assert rule_basis(SimpleNamespace(basis="vectors", gap="overruled")) == (
        "Prompty's vectors: the vectors overrule the text"
    )
    assert rule_basis(SimpleNamespace(basis="text", gap=None)) == "the spec's text"
    shown = {
        rule.gap: rule_basis(rule) for rule in corpus.catalogue.rules.values() if rule.basis == "decision"
    }
    assert len(shown) > 1 and all(gap in text for gap, text in shown.items() if gap != "conflicting")
