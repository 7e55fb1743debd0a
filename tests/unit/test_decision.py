"""The verdict as one pure function (``wireconf.judging.decision.decide``), tested on a small catalogue
of its own and hand-made differences: no corpus, no adapter, no nested pytest run."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from wireconf.core.differences import Difference
from wireconf.corpus.rules import Catalogue, load_catalogue
from wireconf.judging.decision import CaseFacts, as_differences, decide
from wireconf.judging.waivers import Waiver

RULES = """\
rules:
  - id: 1/spec-role
    level: MUST
    basis: text
    governs: [{subject: request, path: '$.messages[*].role'}]
    source: {seed: s.txt, section: '1'}
    statement: the role is copied.
  - id: 1/spec-max-tokens
    level: MUST
    basis: text
    governs: [{subject: request, path: '$.max_tokens', when: [agent.model.options.maxOutputTokens]}]
    source: {seed: s.txt, section: '1'}
    statement: max_tokens carries maxOutputTokens.
  - id: 1/project-default
    level: MUST
    basis: decision
    gap: silent
    decision: the project sends no default.
    governs: [{subject: request, path: '$.max_tokens', when: ['!agent.model.options.maxOutputTokens']}]
    source: {seed: s.txt, section: '1'}
    statement: no default max_tokens.
  - id: 1/cited-but-silent
    level: MUST
    basis: text
    source: {seed: s.txt, section: '1'}
    statement: a rule that declares nothing.
"""

CITED = ("1/cited-but-silent", "1/spec-role")
WITH_MAX = {"agent": {"model": {"options": {"maxOutputTokens": 64}}}}
WITHOUT_MAX = {"agent": {"model": {"options": {}}}}


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    path = Path(tmp_path_factory.mktemp("rules")) / "rules.yaml"
    path.write_text(textwrap.dedent(RULES), encoding="utf-8")
    loaded = load_catalogue(path)
    assert not loaded.problems, loaded.problems
    return loaded


def _case(raw: dict | None = None, case_id: str = "c1") -> CaseFacts:
    return CaseFacts(case_id, "wire", "openai.chat", CITED, raw or WITHOUT_MAX)


def _diff(path: str, change: str = "changed") -> Difference:
    return Difference("request", path, change, f"{path}: {change}")


def test_no_difference_is_a_pass(catalogue):
    assert decide([], _case(), catalogue).outcome == "pass"


def test_a_declared_difference_fails_with_its_rule_and_tier(catalogue):
    got = decide([_diff("$.messages[0].role")], _case(), catalogue)
    assert got.outcome == "fail" and got.broken == ["1/spec-role"] and got.tier == "spec"


def test_a_difference_no_rule_declares_is_unruled_with_no_tier_though_the_case_cites_a_spec_rule(catalogue):
    got = decide([_diff("$.temperature", "unexpected-key")], _case(), catalogue)
    assert got.outcome == "fail"
    assert got.broken == [] and got.tier is None
    assert [a.basis for a in got.unruled] == ["unruled"]


def test_the_tier_comes_from_the_rule_broken_not_from_a_cited_spec_rule(catalogue):
    # the case cites two spec rules; its only difference breaks a project decision
    got = decide([_diff("$.max_tokens", "unexpected-key")], _case(WITHOUT_MAX), catalogue)
    assert got.broken == ["1/project-default"] and got.tier == "project"


def test_a_condition_on_the_input_chooses_the_rule(catalogue):
    got = decide([_diff("$.max_tokens")], _case(WITH_MAX), catalogue)
    assert got.broken == ["1/spec-max-tokens"] and got.tier == "spec"


def test_outside_the_spec_profile_a_project_failure_is_tolerated_and_inside_full_it_fails(catalogue):
    lines = [_diff("$.max_tokens", "unexpected-key")]
    assert decide(lines, _case(), catalogue, profile="spec").outcome == "outside-profile"
    assert decide(lines, _case(), catalogue, profile="full").outcome == "fail"


def test_a_spec_failure_fails_the_spec_profile(catalogue):
    lines = [_diff("$.max_tokens", "unexpected-key"), _diff("$.messages[1].role")]
    got = decide(lines, _case(), catalogue, profile="spec")
    assert got.outcome == "fail" and got.tier == "spec"


def test_an_unruled_difference_is_never_tolerated_by_the_profile(catalogue):
    lines = [_diff("$.max_tokens", "unexpected-key"), _diff("$.seed", "unexpected-key")]
    got = decide(lines, _case(), catalogue, profile="spec")
    assert got.outcome == "fail" and got.tier == "project" and len(got.unruled) == 1


def test_a_waived_difference_is_set_aside_and_the_rest_judged(catalogue):
    waiver = Waiver("$.max_tokens", "sends a default", "request", None, ["c1"])
    role = _diff("$.messages[0].role")
    got = decide([_diff("$.max_tokens", "unexpected-key"), role], _case(), catalogue, waivers=[waiver])
    assert [d.path for d, _ in got.waived] == ["$.max_tokens"]
    assert [a.difference for a in got.attributions] == [role] and got.broken == ["1/spec-role"]
    only_waived = decide([_diff("$.max_tokens", "unexpected-key")], _case(), catalogue, waivers=[waiver])
    assert only_waived.outcome == "pass" and only_waived.attributions == []


def test_a_waiver_applies_only_to_the_cases_it_lists_unless_the_baseline_is_being_updated(catalogue):
    waiver = Waiver("$.max_tokens", "sends a default", "request", None, ["another"])
    lines = [_diff("$.max_tokens", "unexpected-key")]
    assert decide(lines, _case(), catalogue, waivers=[waiver]).outcome == "fail"
    assert decide(lines, _case(), catalogue, waivers=[waiver], updating_baseline=True).outcome == "pass"


def test_a_stale_waiver_fails_a_conforming_case_and_is_never_tolerated(catalogue):
    waiver = Waiver("$.stream", "always sends stream", "request", None, ["c1"])
    got = decide([], _case(), catalogue, waivers=[waiver], profile="spec")
    assert got.outcome == "fail" and got.stale == [waiver] and got.attributions == []
    assert decide([], _case(), catalogue, waivers=[waiver], updating_baseline=True).outcome == "pass"


def test_a_failure_stated_in_prose_is_one_difference_for_the_whole_result():
    assert as_differences(["the runtime returned nothing"]) == [
        Difference("result", "$", "other", "the runtime returned nothing")
    ]
    assert as_differences([]) == []
