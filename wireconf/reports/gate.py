"""The CI gate's policy as a pure function: what a baseline makes of one case's verdict.

``decide`` reads a case's outcome (failed or passed, whether the failure lies outside ``--profile``,
whether differences are left once waivers are applied, the waivers that no longer match) and the run's
mode (``--update-baseline``, ``--allow-new-failures``), and says how the baseline names the case
(docs/ci.md's table: expected, fixed, regression, new, unlisted), whether a failure is let pass (pytest
then says xfailed) and whether a passing case fails the run. ``wireconf.pytest_plugin.ci`` applies the
decision to pytest's report; the policy is unit-tested here without running pytest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wireconf.reports.baseline import EXPECTED, FIXED, NEW, Baseline


@dataclass(frozen=True)
class GatedCase:
    """One case's verdict, as the gate sees it."""

    case_id: str
    fingerprint: str
    failed: bool
    passed: bool
    outside_profile: bool = False
    """A failure that breaks only rules outside ``--profile`` (already xfailed by the item)."""
    differences_left: bool = True
    """Whether the failure has differences once waivers are applied (else only stale waivers fail it)."""
    stale: tuple[str, ...] = field(default_factory=tuple)
    """The waivers that list the case but matched none of its differences."""


@dataclass(frozen=True)
class GateDecision:
    """How the baseline names the case, and what that does to the run."""

    kind: str | None = None
    """``expected``, ``fixed``, ``regression``, ``new`` or ``unlisted``; ``None``: the baseline has no say."""
    reason: str | None = None
    accepted: str | None = None
    """A failure let pass: the text pytest shows for the xfail (``wasxfail``)."""
    fails_run: str | None = None
    """A passing case that fails the run, with this message."""
    section: str | None = None
    """Text added to a failure that fails the run (its ``wireconf baseline`` section)."""


def decide(baseline: Baseline, case: GatedCase, *, updating: bool, allow_new: bool) -> GateDecision:
    """The gate's decision for one case (its call phase).

    A failure outside ``--profile`` costs the run nothing whatever the baseline says (it is only named,
    so that an update counts it); a waiver that no longer matches fails the run like a listed case that
    passes, and an expected failure does not excuse it."""
    reason = baseline.reason(case.case_id)
    if case.outside_profile:
        if reason is not None:
            return GateDecision(EXPECTED, reason)
        if updating:
            return GateDecision(*baseline.history(case.case_id, case.fingerprint))
        return GateDecision()
    if case.failed and case.stale and not case.differences_left:
        why = f"waiver(s) of {', '.join(case.stale)} no longer match any difference of the case"
        return GateDecision(FIXED, why)
    if case.failed and reason is not None:
        if case.stale:
            return GateDecision(EXPECTED, reason)
        return GateDecision(EXPECTED, reason, accepted=f"baseline: {reason}")
    if case.failed:
        kind, why = baseline.history(case.case_id, case.fingerprint)
        if updating:
            return GateDecision(
                kind, why, accepted=f"baseline: {kind} failure, added by --update-baseline ({why})"
            )
        if kind == NEW and not case.stale and allow_new:
            return GateDecision(
                kind, why, accepted=f"baseline: new failure, allowed by --allow-new-failures ({why})"
            )
        return GateDecision(kind, why, section=f"{kind} failure: {why}")
    if case.passed and reason is not None:
        message = (
            f"case {case.case_id} is listed in the baseline {baseline.path} as failing "
            f"({reason}), but it now passes: remove the entry, or run with --update-baseline"
        )
        return GateDecision(FIXED, reason, fails_run=None if updating else message)
    return GateDecision()
