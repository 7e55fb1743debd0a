"""The verdict on one judged case, as one pure function: its differences, the baseline's waivers, the
rule catalogue and the profile in, the decision out.

``CaseItem.runtest`` only calls ``decide`` and renders what it returns, so every rule of the verdict is
here, testable without a pytest run (``tests/unit/test_decision.py``):

- the waivers that list the case set its matching differences aside (all waivers apply while the
  baseline is being updated); a waiver that lists the case and matches nothing is *stale*, and a stale
  waiver fails the case, as a listed expected failure that passes does;
- every other difference is attributed (``wireconf.judging.attribution``): to the rules that declare they
  govern it, else *unruled* (no rule requires it: a defect of the corpus, never a claim against the
  runtime);
- the failure's tier is the most authoritative tier among the rules broken, never that of a rule the
  case merely cites; a failure whose differences are all unruled has no tier;
- under ``--profile interop`` a difference the api's provider treats as the same request (a provider
  equivalence, ``wireconf.providers.equivalence``) is representation: it stays in the decision, shown
  and counted, but the verdict is taken on the others (none left: outside the profile);
- where the provider's pinned contract rejects the request the case expects (``CaseFacts.rejected``:
  the spec's text asks for a request the provider refuses), a runtime that refuses it, as the provider
  would (it raised where the request was expected), or sends another form there is not failed for it
  under ``--profile interop``: such a difference is representation too (``REFUSED_AS_PROVIDER``), at the
  rejected place, inside it or around it; what the runtime sends instead is still checked against the
  contract (a ``provider-rejects`` difference fails in every profile);
- a failure whose tier is outside the profile (a vectors or project rule under ``--profile spec``) is
  tolerated (reported as xfailed); a stale waiver, or an unruled difference, is never tolerated: the
  first is the baseline's defect, the second the corpus's, and the spec profile cannot vouch for either.

What is not a verdict (a network attempt, a refused recording, a protocol fault, an input the harness
cannot deliver) never reaches this function: those are errors of the case, decided where they happen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from wireconf.core.differences import Difference, Line, differences_in
from wireconf.corpus.rules import Catalogue, Tier
from wireconf.judging.attribution import (
    PROVIDER_SCHEMA,
    Attribution,
    attribute,
    broken_rules,
    failure_tier,
    unruled,
)
from wireconf.judging.profile import PROFILES, TOLERATES_REPRESENTATION, in_profile
from wireconf.judging.waivers import Waiver, apply_waivers

Outcome = Literal["pass", "fail", "outside-profile"]


@dataclass(frozen=True)
class CaseFacts:
    """What the verdict needs to know about the case: its id, kind, api, the rules it cites and the case
    as written (the declarations' ``when`` read it)."""

    id: str
    kind: str
    api: str
    cited: tuple[str, ...] = ()
    raw: Mapping[str, Any] | None = None
    rejected: tuple[str, ...] = ()
    """The paths at which the provider's pinned contract rejects the request the case expects
    (``wireconf.reports.provider_schema.expected_problems``)."""


@dataclass(frozen=True)
class Decision:
    """The verdict: ``outcome``, the differences left with the rules they break, those the baseline
    waived (each with its waiver) and the waivers gone stale."""

    outcome: Outcome
    attributions: list[Attribution] = field(default_factory=list)
    waived: list[tuple[Difference, Waiver]] = field(default_factory=list)
    stale: list[Waiver] = field(default_factory=list)

    @property
    def tier(self) -> Tier | None:
        """The failure's tier: the most authoritative among the rules its differences break."""
        return failure_tier(self.attributions)

    @property
    def broken(self) -> list[str]:
        """The rules the differences break, in the order the differences name them."""
        return broken_rules(self.attributions)

    @property
    def unruled(self) -> list[Attribution]:
        """The differences no rule governs."""
        return unruled(self.attributions)

    @property
    def failing_profiles(self) -> tuple[str, ...]:
        """The profiles under which this verdict fails the case (``under``): what every profile's
        figure counts, so that the figures printed beside a run equal what pytest reports under each."""
        if self.outcome == "pass":
            return ()
        return tuple(p for p in PROFILES if under(self.attributions, bool(self.stale), p) == "fail")


REFUSED_AS_PROVIDER = "provider-rejects-expectation"
"""The representation of a difference at a place where the provider's contract rejects the expected
request: the runtime refused it, or sent another form there."""


def _related(path: str, rejected: str) -> bool:
    """``path`` is ``rejected``, inside it, or an object or array around it (never the whole body)."""
    if path == rejected:
        return True
    inside = path.startswith((f"{rejected}.", f"{rejected}["))
    around = path != "$" and rejected.startswith((f"{path}.", f"{path}["))
    return inside or around


def refused_as_provider(attribution: Attribution, rejected: tuple[str, ...]) -> bool:
    """Whether a difference is the runtime refusing, or sending another form of, what the contract
    rejects in the expectation."""
    d = attribution.difference
    if not rejected or attribution.basis == PROVIDER_SCHEMA:
        return False
    if d.change == "raised":
        return True
    return d.subject == "request" and any(_related(d.path, r) for r in rejected)


def as_differences(lines: list[Line]) -> list[Difference]:
    """The differences of a verdict's explanation; a failure stated in prose only is one difference for
    the whole result (``result $ other``)."""
    found = differences_in(lines)
    if lines and not found:
        found = [Difference("result", "$", "other", str(lines[0]))]
    return found


def decide(
    lines: list[Line],
    case: CaseFacts,
    catalogue: Catalogue,
    *,
    waivers: list[Waiver] | None = None,
    profile: str = "full",
    updating_baseline: bool = False,
) -> Decision:
    """The verdict on a case whose judge explained itself with ``lines`` (``[]``: it conforms)."""
    waivers = waivers or []
    found = as_differences(lines)
    applied = apply_waivers(waivers, case.id, found, any_case=updating_baseline)
    waived = [(found[i], waivers[w]) for i, w in applied.waived]
    kept = [found[i] for i in applied.kept]
    attributions = attribute(kept, case.kind, case.api, list(case.cited), catalogue, case.raw)
    attributions = [
        replace(a, representation=REFUSED_AS_PROVIDER)
        if not a.representation and refused_as_provider(a, case.rejected)
        else a
        for a in attributions
    ]
    stale = [] if updating_baseline else [waivers[i] for i in applied.stale]
    if not attributions and not stale:
        return Decision("pass", [], waived, [])
    return Decision(under(attributions, bool(stale), profile), attributions, waived, stale)


def under(attributions: list[Attribution], stale: bool, profile: str) -> Outcome:
    """The outcome, under ``profile``, of a case that differs (``attributions``) or whose baseline's
    waivers went ``stale``: one function for the verdict pytest reports and for every profile's figure."""
    if not attributions and not stale:
        return "pass"
    judged = attributions
    if profile in TOLERATES_REPRESENTATION:
        judged = [a for a in attributions if not a.representation]
    if stale or unruled(judged) or any(a.basis == PROVIDER_SCHEMA for a in judged):
        return "fail"
    tolerated = not judged or not in_profile(failure_tier(judged), profile)
    return "outside-profile" if tolerated else "fail"
