"""The CI gate's policy (``wireconf.reports.gate.decide``), row by row of docs/ci.md's table, without a
pytest run: tests/integration/test_ci_gate.py checks that the plugin applies it in real runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from wireconf.corpus.identity import CorpusIdentity
from wireconf.reports.baseline import EXPECTED, FIXED, NEW, REGRESSION, UNLISTED, Baseline
from wireconf.reports.gate import GatedCase, GateDecision, decide

CASE = "wire.openai.chat.option-seed"
PRINT = "0123456789"


def _baseline(expected: dict[str, str] | None = None, passed: dict[str, str] | None = None) -> Baseline:
    return Baseline(
        Path("conformance/mine.yaml"),
        impl="mine",
        version="1.0",
        expected=expected or {},
        passed=passed,
        corpus=CorpusIdentity("2.0.0", "sha256:0000000000000000"),
    )


def _fails(**changes) -> GatedCase:
    return GatedCase(CASE, PRINT, failed=True, passed=False, **changes)


PASSES = GatedCase(CASE, PRINT, failed=False, passed=True)


def _decide(baseline: Baseline, case: GatedCase, *, updating=False, allow_new=False) -> GateDecision:
    return decide(baseline, case, updating=updating, allow_new=allow_new)


def test_a_listed_failure_is_expected_and_let_pass_with_its_reason():
    decision = _decide(_baseline({CASE: "sends max_tokens"}, {}), _fails())
    assert (decision.kind, decision.reason) == (EXPECTED, "sends max_tokens")
    assert decision.accepted == "baseline: sends max_tokens"
    assert decision.fails_run is None


def test_a_listed_case_that_passes_fails_the_run_unless_the_baseline_is_being_updated():
    baseline = _baseline({CASE: "was broken"}, {})
    decision = _decide(baseline, PASSES)
    assert decision.kind == FIXED and decision.accepted is None
    assert decision.fails_run is not None
    assert "listed in the baseline conformance/mine.yaml as failing (was broken)" in decision.fails_run
    updated = _decide(baseline, PASSES, updating=True)
    assert updated.kind == FIXED and updated.fails_run is None


def test_a_failure_of_a_case_that_passed_unchanged_is_a_regression_the_flag_never_excuses():
    baseline = _baseline(passed={CASE: PRINT})
    for allow_new in (False, True):
        decision = _decide(baseline, _fails(), allow_new=allow_new)
        assert decision.kind == REGRESSION and decision.accepted is None
        assert decision.reason is not None and decision.reason.startswith("it passed when the baseline")
        assert decision.section == f"regression failure: {decision.reason}"


@pytest.mark.parametrize(
    ("passed", "says"),
    [({}, "never judged it"), ({CASE: "another-print"}, "the case changed since the baseline")],
)
def test_a_failure_the_baseline_never_saw_as_it_is_is_new_and_the_flag_decides(passed, says):
    baseline = _baseline(passed=passed)
    strict = _decide(baseline, _fails())
    assert strict.kind == NEW and strict.accepted is None and says in (strict.reason or "")
    allowed = _decide(baseline, _fails(), allow_new=True)
    assert allowed.kind == NEW and allowed.accepted is not None
    assert "allowed by --allow-new-failures" in allowed.accepted


def test_a_baseline_without_passes_cannot_tell_new_from_regression_and_fails_even_when_allowed():
    decision = _decide(_baseline(passed=None), _fails(), allow_new=True)
    assert decision.kind == UNLISTED and decision.accepted is None


def test_updating_lets_every_unlisted_failure_pass_as_what_it_is():
    for passed, kind in (({CASE: PRINT}, REGRESSION), ({}, NEW), (None, UNLISTED)):
        decision = _decide(_baseline(passed=passed), _fails(), updating=True)
        assert decision.kind == kind
        assert decision.accepted is not None and "added by --update-baseline" in decision.accepted


def test_a_stale_waiver_fails_the_case_even_when_its_failure_is_listed():
    stale = _fails(stale=("$.stream unexpected-key",), differences_left=False)
    decision = _decide(_baseline({CASE: "known"}, {}), stale)
    assert decision.kind == FIXED and "no longer match" in (decision.reason or "")
    assert decision.accepted is None
    listed = _decide(_baseline({CASE: "known"}, {}), _fails(stale=("$.stream unexpected-key",)))
    assert listed.kind == EXPECTED and listed.accepted is None  # the listing does not excuse it
    new = _decide(_baseline(passed={}), _fails(stale=("$.stream unexpected-key",)), allow_new=True)
    assert new.kind == NEW and new.accepted is None  # nor does --allow-new-failures


def test_a_failure_outside_the_profile_is_only_named():
    outside = _fails(outside_profile=True)
    assert _decide(_baseline({CASE: "known"}, {}), outside) == GateDecision(EXPECTED, "known")
    assert _decide(_baseline(passed={CASE: PRINT}), outside) == GateDecision()
    named = _decide(_baseline(passed={CASE: PRINT}), outside, updating=True)
    assert named.kind == REGRESSION and named.accepted is None and named.fails_run is None


def test_a_passing_case_the_baseline_does_not_list_is_none_of_its_business():
    assert _decide(_baseline(passed={}), PASSES) == GateDecision()
