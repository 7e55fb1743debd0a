"""The findings page (``wireconf/reports/findings.py``): failures filed under the rule their reason
names, grouped by root cause (the same explanation) in a table per runtime, and the committed
baselines' reasons name a rule their case really cites."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.conftest import CASES, REPO
from wireconf.corpus.rules import Catalogue, load_catalogue
from wireconf.reports.baseline import default_reason
from wireconf.reports.findings import (
    REASONS_HEADING,
    UNREVIEWED,
    NotRun,
    filed_under,
    render_findings,
    root_causes,
)
from wireconf.reports.jsonl import CaseRecord

SPEC_RULE = "8.1/null-content-empty-string"  # the spec's pseudocode
PROJECT_RULE = "8.6/first-choice-only"  # a project decision
CAUSE_A = "the processor returns content as is; §8.1 returns content or an empty string."
CAUSE_B = "every candidate's deltas are yielded; the project reads index 0 only."


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue(CASES / "rules.yaml")


def record(case_id: str, reason: str | None, rules: list[str], impl: str = "rt", **kw: object) -> CaseRecord:
    diff = kw.pop("diff", f'the result differs:\n  $: expected string "", got null ({case_id})')
    status = str(kw.pop("status", "failed"))
    baseline = "expected" if status == "failed" else None
    return CaseRecord(
        impl, "1.0", case_id, "process", "openai.chat", rules, status, 0.0, baseline, reason, str(diff), **kw
    )


def test_catalogue_has_the_rules_these_tests_use(catalogue):
    assert catalogue.rules[SPEC_RULE].tier == "spec"
    assert catalogue.rules[PROJECT_RULE].tier == "project"


def test_a_written_reason_files_the_case_under_its_rule_with_its_explanation():
    case = record("c1", f"{PROJECT_RULE}: {CAUSE_B}", [SPEC_RULE, PROJECT_RULE])
    assert filed_under(case) == (PROJECT_RULE, CAUSE_B)


def test_a_generated_reason_is_filed_under_the_first_rule_without_an_explanation():
    case = record("c1", None, [SPEC_RULE, PROJECT_RULE])
    case.reason = default_reason(case.rules, case.diff, None)
    assert filed_under(case) == (SPEC_RULE, None)


def test_a_reason_naming_a_rule_the_case_does_not_cite_is_kept_whole():
    reason = f"{PROJECT_RULE}: {CAUSE_B}"
    assert filed_under(record("c1", reason, [SPEC_RULE])) == (SPEC_RULE, reason)


def test_root_causes_group_identical_explanations_most_cases_first_unreviewed_last():
    failures = [
        record("b", f"{PROJECT_RULE}: {CAUSE_B}", [PROJECT_RULE]),
        record("a1", f"{SPEC_RULE}: {CAUSE_A}", [SPEC_RULE]),
        record("z", None, [SPEC_RULE]),
        record("a2", f"{SPEC_RULE}: {CAUSE_A}", [SPEC_RULE, PROJECT_RULE]),
        record("z2", None, [SPEC_RULE]),
        record("z3", None, [SPEC_RULE]),
    ]
    for case in failures:
        if case.reason is None:
            case.reason = default_reason(case.rules, case.diff, None)
    causes = root_causes(failures)
    assert [(c.explanation, [r.id for r in c.records]) for c in causes] == [
        (CAUSE_A, ["a1", "a2"]),
        (CAUSE_B, ["b"]),
        (None, ["z", "z2", "z3"]),
    ]
    assert causes[0].rules == [SPEC_RULE]


def test_the_page_opens_each_runtime_with_its_root_causes_then_the_deviations(catalogue):
    records = [
        record("case.one", f"{SPEC_RULE}: {CAUSE_A}", [SPEC_RULE]),
        record("case.two", f"{SPEC_RULE}: {CAUSE_A}", [SPEC_RULE]),
        record("case.three", f"{PROJECT_RULE}: {CAUSE_B}", [PROJECT_RULE]),
        record("case.four", None, [PROJECT_RULE], diff="the result differs:\n  $: expected 1, got 2"),
        record("case.ok", None, [SPEC_RULE], status="passed"),
        record(
            "idle.case",
            "Skipped: process:openai.chat not supported",
            [SPEC_RULE],
            impl="idle",
            status="unsupported",
        ),
    ]
    records[3].reason = default_reason(records[3].rules, records[3].diff, None)
    page = render_findings(records, catalogue, [NotRun("broken", "cannot import")], "wireconf findings", 5)

    # passed, failed, error, unsupported, skipped, rules broken, root causes by difference, explained
    # (of the root causes by difference, as the section counts them: no case here has a difference)
    assert "| rt 1.0 | 1 | 4 | 0 | 0 | 0 | 2 | 0 | 0 (0 proved) |" in page
    assert "| broken | not run: cannot import |" in page
    assert "Not judged here" in page and "- idle 1.0" in page and "## idle" not in page
    section = page.split("## rt 1.0", 1)[1]
    assert (
        "1 of 5 judged cases pass; 4 fail, breaking 2 rule(s). Root causes: 0 by difference, 0 explained"
        " (0 proved by their reproduction), 1 case(s) whose baseline reason is not reviewed yet." in section
    )
    table, deviations = section.split("### Deviations by rule")
    rows = [line for line in table.splitlines() if re.match(r"\| \d+ \|", line)]
    assert rows == [
        f"| 2 | {CAUSE_A} | `{SPEC_RULE}` | spec |",
        f"| 1 | {CAUSE_B} | `{PROJECT_RULE}` | project decision |",
        f"| 1 | {UNREVIEWED} | `{PROJECT_RULE}` | project decision |",
    ]
    # under each rule, the cases sharing an explanation follow it once, each with its own diff
    assert deviations.count(CAUSE_A) == 1
    assert f"**Baseline reason** (2 cases): {CAUSE_A}" in deviations
    assert (
        deviations.index("`case.one`")
        < deviations.index("`case.two`")
        < deviations.index(f"`{PROJECT_RULE}`")
    )
    assert "(case.one)" in deviations and "(case.two)" in deviations
    assert f"**Baseline reason** (1 case): {UNREVIEWED}" in deviations and "expected 1, got 2" in deviations
    assert catalogue.rules[PROJECT_RULE].statement in deviations


def _rows(section: str, heading: str) -> list[str]:
    """The rows of the table under ``### heading`` in a runtime's section."""
    part = section.split(f"### {heading}\n", 1)[1].split("\n### ", 1)[0]
    return [line for line in part.splitlines() if re.match(r"\| \d+ \|", line)]


def test_a_new_runtimes_counts_match_its_tables(catalogue):
    """A runtime not shipped, its baseline just written (every reason the generated one): the section's
    first sentence and the page's table count what the tables below them list, never "1 root cause" beside
    a table of many."""
    records = []
    for index in range(12):
        path = f"$.messages[{index % 4}].role" if index % 3 else "$.unexplained_key"
        rules = [] if path == "$.unexplained_key" else ["7.1.1/role-copied"]
        change = "unexpected-key" if not rules else "value"
        difference = {
            "subject": "request",
            "path": path,
            "change": change,
            "text": f"{path}: {change} {index}",
            "signature": f"request $.messages[*].role {change}" if rules else f"request {path} {change}",
            "rules": rules,
            "basis": "declared" if rules else "unruled",
            "tier": "spec" if rules else None,
            "api": "openai.chat",
        }
        case = record(
            f"case.{index}",
            None,
            ["7.1.1/role-copied"],
            differences=[difference],
            tier="spec" if rules else None,
        )
        case.reason = default_reason(case.broken, case.diff, None, case.differences)
        records.append(case)
    records.append(record("case.broken", None, [SPEC_RULE], status="error"))
    page = render_findings(records, catalogue, [], "wireconf findings --impl mine", 13)
    section = page.split("## rt 1.0", 1)[1]
    by_difference = _rows(section, "Root causes by difference")
    explained = [row for row in _rows(section, REASONS_HEADING) if UNREVIEWED not in row]
    unreviewed = sum(int(row.split("|")[1]) for row in _rows(section, REASONS_HEADING) if UNREVIEWED in row)
    rules = re.findall(r"^#### `([^`]+)`", section.split("### Deviations by rule", 1)[1], re.M)
    first = section.strip().splitlines()[0]
    assert (len(by_difference), len(explained), unreviewed, len(rules)) == (2, 0, 13, 1)  # the error too
    assert first.startswith(
        "0 of 13 judged cases pass; 12 fail and 1 could not be judged (error), breaking 1 rule(s) (4 case(s) "
        "with differences no rule declares). Root causes: 2 by difference, 0 explained (0 proved by their"
        " reproduction), 13 case(s) whose baseline reason is not reviewed yet."
    ), first
    assert "| rt 1.0 | 0 | 12 | 1 | 0 | 0 | 1 | 2 | 0 (0 proved) |" in page


def test_a_pipe_in_an_explanation_does_not_break_the_table(catalogue):
    records = [record("c", f"{SPEC_RULE}: sends a|b instead of c", [SPEC_RULE])]
    page = render_findings(records, catalogue, [], "wireconf findings", 1)
    assert "| 1 | sends a\\|b instead of c |" in page


@pytest.mark.parametrize("impl", ["prompty", "nat"])
def test_every_committed_reason_names_a_rule_its_case_cites(corpus, impl):
    """A reason written by a person starts with the rule really broken, one its case cites (or one that
    declares the differences it governs, which a case can break without citing it), so the page files
    it there; the explanation after it is never empty."""
    entries = yaml.safe_load((REPO / "conformance" / f"{impl}.yaml").read_text(encoding="utf-8"))
    cases = {c.id: c for c in corpus.cases()}
    catalogue_rules = corpus.catalogue.rules
    assert entries["expected_failures"]
    for case_id, reason in entries["expected_failures"].items():
        assert case_id in cases, f"{impl}: {case_id} is not in the corpus"
        rule, _, explanation = reason.partition(": ")
        declaring = rule in catalogue_rules and catalogue_rules[rule].governs
        assert rule in cases[case_id].model.rules or declaring, (
            f"{impl}: {case_id} is filed under {rule}, not a rule it cites"
        )
        assert explanation.strip(), f"{impl}: {case_id} has no explanation"


def test_findings_names_the_baseline_of_any_runtime_as_asked_or_as_one_safe_file_name():
    from wireconf.commands.findings import Runtime, _requested

    assert _requested("mine=exec:node ./adapter/server.mjs") == Runtime(
        "mine", "exec:node ./adapter/server.mjs"
    )
    assert _requested("prompty") == Runtime("prompty", "prompty")
    # no folder, no space, no colon: the impl made one file name in --baselines
    assert _requested("exec:node ./adapter/server.mjs").name == "exec_node_._adapter_server.mjs"
    assert _requested("mypkg.conformance:Adapter").name == "mypkg.conformance_Adapter"
    # an environment assignment in an exec command is not a name
    assert _requested("exec:FOO=1 node x.mjs").impl == "exec:FOO=1 node x.mjs"


def test_a_request_the_providers_contract_rejects_is_reproduced_citing_the_contract():
    """A rejected cause has no rule of the catalogue: its reproduction cites the provider's contract
    (``REJECTED_RULE``), where the caller says a script checks its difference."""
    from wireconf.reports.causes import group_causes
    from wireconf.reports.findings import REJECTED_RULE, repro_target

    difference = {
        "subject": "request",
        "path": "$.top_k",
        "change": "provider-rejects",
        "text": "$.top_k: the provider's contract rejects this (CreateChatCompletionRequest): no such key",
        "signature": "request $.top_k: provider-rejects (CreateChatCompletionRequest)",
        "rules": [],
        "basis": "provider-schema",
    }
    record = CaseRecord(
        "rt", "1", "wire.x", "wire", "openai.chat", [], "failed", 0.0, differences=[difference]
    )
    (cause,) = group_causes([(record.id, [difference])])
    assert cause.rejected
    target = repro_target(cause, {record.id: record}, lambda r, d: True)
    assert target is not None and target[1:] == (REJECTED_RULE, "$.top_k")
    assert repro_target(cause, {record.id: record}, lambda r, d: False) is None
