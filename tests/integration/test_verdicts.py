"""Verdicts a maintainer can act on: the rule a difference breaks, the failure's tier and the profiles,
root causes, path-level waivers, concepts a runtime lacks, and one comparison in every kind."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.conftest import CASES, REPO
from tests.fakes import raises_at_refusal, spec_literal
from wireconf.cassettes.compare import differences
from wireconf.core.differences import Difference
from wireconf.corpus.rules import load_catalogue
from wireconf.judging.attribution import attribute_one
from wireconf.judging.canonical import canonical
from wireconf.reports.baseline import BaselineError, load_baseline
from wireconf.reports.causes import group_causes
from wireconf.reports.jsonl import read_records

CHAT = "openai.chat"


@pytest.fixture(scope="module")
def catalogue():
    return load_catalogue(CASES / "rules.yaml")


@dataclass
class Done:
    """What these tests read of a pytest run: its exit code and its terminal output."""

    returncode: int
    stdout: str


@pytest.fixture
def run(pytester) -> Callable[..., Done]:
    """``pytest -q ARGS`` (``cases``: the project's corpus) in this process, as run_corpus runs it: a
    process of its own would add seconds of start-up (the SDKs' imports) to every run."""
    pytester.syspathinsert(REPO)

    def run(*args: str) -> Done:
        given = (str(CASES) if arg == "cases" else arg for arg in args)
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q", *given)
        return Done(int(result.ret), result.stdout.str())

    return run


@pytest.fixture(scope="module")
def made_once() -> dict[str, Any]:
    """Runs that several tests of this module only read, made by the first test that needs each."""
    return {}


# --- the rule a difference breaks ----------------------------------------------------------------------


def _request(path: str, change: str, shape: str = "") -> Difference:
    return Difference("request", path, change, f"{path}: {change}", shape)


def test_an_unexpected_top_level_key_breaks_no_other_keys_though_the_case_does_not_cite_it(catalogue):
    cited = ["7.1.1/single-text-part-is-string", "7.1.1/role-copied"]
    got = attribute_one(_request("$.stream", "unexpected-key"), "wire", CHAT, cited, catalogue)
    assert got.rules == ("7.1.7/no-other-keys",) and got.basis == "declared" and got.tier == "spec"
    # the same key in an Anthropic body breaks Anthropic's rule, not OpenAI's
    got = attribute_one(_request("$.stream", "unexpected-key"), "e2e", "anthropic.messages", [], catalogue)
    assert got.rules == ("7.5/no-other-keys",)


def test_a_declaration_applies_where_the_case_sets_up_what_it_is_about(catalogue):
    max_tokens = _request("$.max_tokens", "unexpected-key")
    cited = ["7.1.5/max-completion-tokens"]
    with_max = {"agent": {"model": {"id": "m", "options": {"maxOutputTokens": 256}}}}
    got = attribute_one(max_tokens, "wire", CHAT, cited, catalogue, with_max)
    assert got.rules == ("7.1.5/max-completion-tokens",)
    # without maxOutputTokens in the case, a default max_tokens is just one key too many
    without = {"agent": {"model": {"id": "m"}}}
    assert attribute_one(max_tokens, "wire", CHAT, cited, catalogue, without).rules == (
        "7.1.7/no-other-keys",
    )


def test_a_type_change_names_the_rule_of_its_shape(catalogue):
    as_string = _request("$.messages[0].content", "type", "array → string")
    as_array = _request("$.messages[0].content", "type", "string → array")
    assert "7.1.1/multi-part-is-array" in attribute_one(as_string, "wire", CHAT, [], catalogue).rules
    assert attribute_one(as_array, "wire", CHAT, [], catalogue).rules == ("7.1.1/single-text-part-is-string",)


def test_a_difference_no_rule_declares_is_unruled_and_never_charged_to_the_cited_rules(catalogue):
    odd = Difference("spans", "$[0].attributes.wireconf-no-rule-governs-this", "value", "an odd span")
    cited = ["7.1.1/role-copied", "7.1.1/metadata-merged"]
    got = attribute_one(odd, "wire", CHAT, cited, catalogue)
    assert got.rules == () and got.basis == "unruled" and got.tier is None


def test_every_declaration_is_reachable(catalogue):
    """Each governs entry names a path a diff can print and a known rule; none is shadowed entirely."""
    assert len(catalogue.governing) >= 40
    for rule_id, g in catalogue.governing:
        assert g.pattern.pattern.startswith(r"\$"), rule_id


# --- one comparison ------------------------------------------------------------------------------------


class Text(str):
    """A runtime's own string type (LangChain's, an enum's)."""

    def __str__(self) -> str:
        return "not the content"


def test_a_str_subclass_is_the_string_it_holds_in_every_comparison():
    assert canonical([Text("One"), {"k": Text("v")}]) == ["One", {"k": "v"}]
    assert all(type(x) is str for x in canonical([Text("One"), Text("")]))
    # with another difference beside it, the diff never shows a type change between equal strings
    lines = [d.text for d in differences(["One", "Two"], canonical([Text("One"), "Two", ""]))]
    assert lines == ['$[2]: unexpected item (got "")']


def test_a_type_change_between_same_json_types_says_which_python_types():
    class Other(str):
        pass

    (line,) = differences(["One"], [Other("Two")])
    assert line.change == "value"  # the values differ; deepdiff's type check alone would hide why
    (same,) = [d for d in differences({"a": "x"}, {"a": Other("x")}) if d.change == "type"] or [None]
    assert same is not None and "str ≠ Other" in same.text


@pytest.mark.parametrize("kind", ["process", "stream", "e2e"])
def test_a_runtime_returning_str_subclasses_passes_in_every_kind(run_corpus, kind):
    run = run_corpus("--impl=tests.fakes.str_subclass:adapter", f"--kind={kind}", f"--api={CHAT}")
    assert run.outcomes and set(run.outcomes.values()) <= {"passed", "unsupported"}, run.longreprs


# --- tiers, profiles, root causes ---------------------------------------------------------------------


@pytest.fixture
def literal_run(run, made_once, tmp_path_factory):
    """The fake that follows the spec's text literally, judged on the spec profile (run once)."""
    if "literal" not in made_once:
        out = tmp_path_factory.mktemp("literal") / "run.jsonl"
        done = run(
            "cases",
            "--impl=tests.fakes.spec_literal:adapter",
            f"--api={CHAT}",
            "--profile=spec",
            f"--report={out}",
        )
        made_once["literal"] = (done, read_records([out]))
    return made_once["literal"]


def test_a_runtime_that_follows_the_spec_text_passes_the_spec_profile(literal_run):
    done, records = literal_run
    assert done.returncode == 0, done.stdout[-3000:]
    failed = [r for r in records if r.status == "failed"]
    assert failed, "the fake deviates from the vectors and from project decisions"
    # each failure names the one rule outside the spec's text it breaks, with that rule's tier
    assert {rule for r in failed for rule in r.broken} == set(spec_literal.BROKEN)
    assert all(r.tier == spec_literal.BROKEN[rule] for r in failed for rule in r.broken)
    assert all(r.outside_profile == "spec" for r in failed)
    vectors = sum(r.tier == "vectors" for r in failed)
    judged = sum(1 for r in records if r.status in ("passed", "failed", "error"))
    assert (
        f"spec profile: {judged} of {judged} judged cases conform to the spec's text; 0 fail" in done.stdout
    )
    assert (
        f"{len(failed)} fail (0 the spec's text, {vectors} Prompty's vectors, "
        f"{len(failed) - vectors} a project decision)" in done.stdout
    )
    assert f"{len(failed)} xfailed" in done.stdout


def test_the_full_profile_fails_the_same_runtime(run, tmp_path):
    done = run("cases", "--impl=tests.fakes.spec_literal:adapter", f"--api={CHAT}", "--kind=process")
    assert done.returncode == 1
    assert "8.1/refusal-text [MUST, vectors]" in done.stdout  # the failure names the rule it breaks
    assert "8/plain-mapping-response [MUST, project] (declares $ raised)" in done.stdout


def test_a_runtime_raising_at_a_refusal_breaks_the_vectors_refusal_rule_only(run, tmp_path):
    """Raising (the project's old rule) is neither the text's "" nor the vector's refusal text: the raise
    names 8.1/refusal-text, not the other rules its cases cite, so the spec profile still passes."""
    out = tmp_path / "r.jsonl"
    args = ("cases", "--impl=tests.fakes.raises_at_refusal:adapter", f"--api={CHAT}", f"--report={out}")
    assert run(*args, "--profile=spec").returncode == 0
    failed = [r for r in read_records([out]) if r.status == "failed"]
    assert failed and {"process", "e2e"} <= {r.kind for r in failed}
    assert {tuple(r.broken) for r in failed} == {(raises_at_refusal.BROKEN_RULE,)}
    assert {r.tier for r in failed} == {"vectors"}
    changes = {d["change"] for r in failed for d in r.differences or []}
    assert "raised" in changes


def test_a_plain_mapping_the_runtime_cannot_read_breaks_the_mapping_decision_not_the_cited_rule(catalogue):
    cited = ["8/plain-mapping-response", "8.1/content-string"]
    raised = Difference("result", "$", "raised", "process: expected a result, but the adapter raised …")
    whole = Difference("result", "$", "type", '$: expected string "Hi", got object {…}', "string → object")
    mapping_case = {"response_as": "mapping"}  # the declaration applies where the case hands a mapping
    for difference in (raised, whole):
        got = attribute_one(difference, "process", CHAT, cited, catalogue, mapping_case)
        assert (got.rules, got.basis, got.tier) == (("8/plain-mapping-response",), "declared", "project")
        # the same difference in a case that hands the SDK's object is not the mapping decision's
        assert (
            "8/plain-mapping-response"
            not in attribute_one(difference, "process", CHAT, cited, catalogue, {}).rules
        )
    # a wrong value of the right type is not the mapping decision's (it is the processing rule's, once
    # that rule declares it; never charged to a rule the case merely cites)
    wrong = Difference("result", "$", "value", '$: expected "Hi", got "Ho"')
    got = attribute_one(wrong, "process", CHAT, cited, catalogue, mapping_case)
    assert "8/plain-mapping-response" not in got.rules
    assert got.basis == "declared" or (got.basis == "unruled" and got.rules == () and got.tier is None)
    # the declaration is the mapping cases' own (if_cited): a raise elsewhere is not the mapping's
    assert "8/plain-mapping-response" not in (
        attribute_one(raised, "process", CHAT, ["8.1/content-string"], catalogue, mapping_case).rules
    )


def test_root_causes_group_cases_by_rule_and_difference(literal_run):
    done, records = literal_run
    causes = group_causes((r.id, r.differences or []) for r in records if r.status == "failed")
    by_rule = {c.rules: c for c in causes}
    assert set(by_rule) == {(rule,) for rule in spec_literal.BROKEN}
    assert sum(len(c.cases) for c in causes) >= len([r for r in records if r.status == "failed"])
    described = by_rule[("7.1.3/null-description-omitted",)]
    assert 'description: unexpected key (got "")' in described.example
    heading = f"root causes ({len(causes)}: failures that share the rule broken and the difference):"
    assert heading in done.stdout


# --- waivers -------------------------------------------------------------------------------------------


def _baseline(tmp_path, waivers: str, expected: str = "{}"):
    path = tmp_path / "baseline.yaml"
    path.write_text(f"impl: spec-literal\nversion: 0.0.1\nexpected_failures: {expected}\nwaivers:\n{waivers}")
    return path


DESCRIPTION_WAIVER = """\
  - subject: request
    path: $.tools[*].function.description
    change: unexpected-key
    reason: the runtime sends an empty description for a tool without one; providers accept it
    cases: []
"""


def test_update_baseline_fills_a_waivers_cases_and_the_gate_then_judges_the_rest(run, tmp_path):
    path = _baseline(tmp_path, DESCRIPTION_WAIVER)
    args = ("cases", "--impl=tests.fakes.spec_literal:adapter", f"--api={CHAT}", "--kind=wire")
    updated = run(*args, f"--baseline={path}", "--update-baseline")
    assert updated.returncode == 0, updated.stdout[-2000:]
    baseline = load_baseline(path)
    (waiver,) = baseline.waivers
    assert waiver.cases and all(c.startswith("wire.openai.chat.") for c in waiver.cases)
    assert not baseline.expected  # every failure of these cases was that one difference: waived, not listed
    gated = run(*args, f"--baseline={path}", f"--report={tmp_path / 'r.jsonl'}")
    assert gated.returncode == 0, gated.stdout[-2000:]
    records = {r.id: r for r in read_records([tmp_path / "r.jsonl"])}
    for case_id in waiver.cases:
        assert records[case_id].status == "passed" and records[case_id].waived
    # the baseline's other sections are written beside the waivers: a waived case that passes is
    # recorded as passed, so a difference that appears in it later is a regression
    assert baseline.corpus is not None and baseline.corpus.version == records[waiver.cases[0]].corpus
    assert set(waiver.cases) <= set(baseline.passed or {})


def test_a_waiver_that_no_longer_matches_fails_its_case_and_the_rest_is_still_judged(run, tmp_path):
    listed = "wire.openai.chat.single-text-part-is-string"  # the fake sends it exactly as the spec says
    path = _baseline(tmp_path, DESCRIPTION_WAIVER.replace("cases: []", f"cases: [{listed}]"))
    done = run(
        "cases",
        "--impl=tests.fakes.sends_max_tokens:adapter",
        f"--api={CHAT}",
        "--kind=wire",
        f"--baseline={path}",
        f"--report={tmp_path / 'r.jsonl'}",
        "-k",
        f"{listed} or option-max-output-tokens",
    )
    assert done.returncode == 1
    assert "lists this case, but no difference of the case matches it any more" in done.stdout
    assert "$.max_tokens: unexpected key (got 256)" in done.stdout  # not waived: still a failure
    records = {r.id: r for r in read_records([tmp_path / "r.jsonl"])}
    # the case conforms; what fails the run is the baseline, as for a listed case that passes: the gate
    # names it fixed, never a regression of the runtime
    assert (records[listed].status, records[listed].baseline) == ("passed", "fixed")
    assert "no longer match" in records[listed].reason
    assert records["wire.openai.chat.option-max-output-tokens"].baseline == "unlisted"  # no `passed` here


def test_the_gate_tells_regressions_apart_only_within_the_profile(run, tmp_path):
    """A case the baseline saw pass (the reference's) that now fails only a project decision: outside
    the spec profile it costs the run nothing; under the full profile it is a regression."""
    path = tmp_path / "baseline.yaml"
    case = "wire.openai.chat.tool-without-description"
    select = ("cases", f"--api={CHAT}", "--kind=wire", "-k", case)
    written = run(*select, "--impl=reference", f"--baseline={path}", "--update-baseline")
    assert written.returncode == 0, written.stdout[-2000:]
    assert case in (load_baseline(path).passed or {})
    literal = (*select, "--impl=tests.fakes.spec_literal:adapter", f"--baseline={path}")
    spec = run(*literal, "--profile=spec", f"--report={tmp_path / 'spec.jsonl'}")
    assert spec.returncode == 0, spec.stdout[-3000:]
    (record,) = read_records([tmp_path / "spec.jsonl"])
    assert (record.status, record.outside_profile, record.baseline) == ("failed", "spec", None)
    full = run(*literal, f"--report={tmp_path / 'full.jsonl'}")
    assert full.returncode == 1
    (record,) = read_records([tmp_path / "full.jsonl"])
    assert (record.status, record.baseline, record.tier) == ("failed", "regression", "project")
    assert "1 regression(s)" in full.stdout


def test_a_malformed_waiver_names_the_entry(tmp_path):
    path = _baseline(tmp_path, "  - path: $.stream\n    change: unexpected\n    reason: x\n")
    with pytest.raises(BaselineError, match=r"waivers\[0\] \(\$\.stream\): `change` is one of"):
        load_baseline(path)


# --- concepts ------------------------------------------------------------------------------------------


def test_a_case_needing_a_concept_the_runtime_lacks_is_unsupported_never_passed(run_corpus, corpus):
    run = run_corpus("--impl=tests.fakes.without_concepts:adapter", f"--api={CHAT}", "--kind=wire")
    from wireconf.kinds.concepts import needed_concepts

    needing = {c.id: needed_concepts(c.kind, c.api, c.raw) for c in corpus.cases() if c.id in run.outcomes}
    lacking = {case for case, needs in needing.items() if {"mcp-tools", "tool-bindings"} & set(needs)}
    assert lacking and run.with_outcome("unsupported") == lacking
    assert all(run.outcomes[c] == "passed" for c in set(run.outcomes) - lacking)
    some = sorted(lacking)[0]
    assert "does not declare: concept:" in run.longreprs[some]


def test_concept_capabilities_are_checked_at_start(pytester):
    pytester.makepyfile(
        odd=textwrap.dedent(
            """
            class Adapter:
                name, version = "odd", "1"
                def capabilities(self):
                    return {"process:openai.chat", "concept:telepathy"}
                def process(self, api, agent, response):
                    return ""
            adapter = Adapter()
            """
        )
    )
    pytester.syspathinsert()
    result = pytester.runpytest(str(CASES), "--impl=odd:adapter", "-p", "no:cacheprovider")
    result.stderr.fnmatch_lines(["*unknown concept 'telepathy' (known: prompty-tools, mcp-tools*"])


def test_report_line_carries_tier_and_differences(literal_run):
    _, records = literal_run
    record = next(r for r in records if r.status == "failed")
    data = json.loads(record.to_json())
    (rule,) = data["differences"][0]["rules"]
    assert data["tier"] == spec_literal.BROKEN[rule]
    assert data["differences"][0]["basis"] == "declared"


def test_html_collapses_rows_no_runtime_supports():
    from wireconf.reports.html import render_html
    from wireconf.reports.jsonl import CaseRecord
    from wireconf.reports.matrix import build_matrix

    records = [
        CaseRecord("rt", "1", "wire.openai.chat.a", "wire", CHAT, ["r"], "passed", 0.0),
        CaseRecord("rt", "1", "trace.openai.chat.b", "trace", CHAT, ["r"], "unsupported", 0.0),
    ]
    page = render_html(build_matrix(records))
    assert '<tr data-kind="wire" data-api="openai.chat">' in page
    assert '<tr data-kind="trace"' not in page
    assert '<details id="unsupported" class="view"><summary>1 (kind, api) section(s)' in page
    assert "<code>trace:openai.chat</code>" in page


def test_the_exec_schema_accepts_exactly_the_contracts_concepts():
    import re as _re

    from wireconf.adapter_contract import CONCEPTS
    from wireconf.exec_protocol.messages import schema

    pattern = schema()["$defs"]["capability"]["pattern"]
    listed = _re.search(r"concept:\(([^)]*)\)", pattern).group(1).split("|")
    assert listed == list(CONCEPTS)
