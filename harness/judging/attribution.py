"""The rule each difference of a failing case breaks, and so the failure's tier.

A case cites the rules it was written to check, but a runtime can deviate anywhere in what the case
compares: an unexpected top-level ``stream`` key in a case about message content breaks
``7.1.7/no-other-keys``, which that case does not cite. Rules declare the differences they govern
(``governs`` in ``cases/rules.yaml``); for each difference:

1. the rules whose declarations match it (a declaration marked ``if_cited`` only in the cases that
   cite its rule), preferring those the case cites, then the narrowest path (``$.max_tokens`` before
   ``$.*``): the difference is *declared* to break them;
2. else the case's cited rules, less those that declare what they govern (a rule that lists its
   differences is not broken by another one); if every cited rule does, all of them: the honest
   fallback, reported as *cited* (the case checks these rules; none narrows the difference further).

A failure's tier is the most authoritative tier among the rules its differences break (a spec rule
broken makes a spec failure, whatever else the case cites).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from harness.corpus.rules import TIERS, Catalogue, Tier
from harness.judging.differences import Difference

DECLARED = "declared"
CITED = "cited"


@dataclass(frozen=True)
class Attribution:
    difference: Difference
    rules: tuple[str, ...]
    basis: str  # DECLARED or CITED
    tier: Tier | None  # the most authoritative tier among ``rules``; None when none is in the catalogue
    api: str = ""

    def to_data(self) -> dict[str, Any]:
        d = self.difference
        data: dict[str, Any] = {
            "subject": d.subject,
            "path": d.path,
            "change": d.change,
            "text": d.text,
            "signature": d.signature,
            "rules": list(self.rules),
            "basis": self.basis,
            "tier": self.tier,
            "api": self.api,
        }
        if d.variant:
            data["variant"] = d.variant
        return data


def most_authoritative(tiers: list[Tier | None]) -> Tier | None:
    known = [t for t in tiers if t is not None]
    return min(known, key=TIERS.index) if known else None


def _tier(rule_ids: tuple[str, ...], catalogue: Catalogue) -> Tier | None:
    return most_authoritative([catalogue.rules[r].tier for r in rule_ids if r in catalogue.rules])


def attribute_one(
    difference: Difference, kind: str, api: str, cited: list[str], catalogue: Catalogue
) -> Attribution:
    matches = [
        (rule_id, g.specificity)
        for rule_id, g in catalogue.governing
        if g.matches(difference.subject, difference.path, difference.change, difference.shape, kind, api)
        and (rule_id in cited or not g.if_cited)
    ]
    if matches:
        pool = [m for m in matches if m[0] in cited] or matches
        best = max(specificity for _, specificity in pool)
        rules = tuple(dict.fromkeys(rule_id for rule_id, s in pool if s == best))
        return Attribution(difference, rules, DECLARED, _tier(rules, catalogue), api)
    open_rules = [r for r in cited if r not in catalogue.rules or not catalogue.rules[r].governs]
    rules = tuple(open_rules or cited)
    return Attribution(difference, rules, CITED, _tier(rules, catalogue), api)


def attribute(
    differences: list[Difference], kind: str, api: str, cited: list[str], catalogue: Catalogue
) -> list[Attribution]:
    """Each difference with the rules it breaks (see the module docstring)."""
    return [attribute_one(d, kind, api, cited, catalogue) for d in differences]


def broken_rules(attributions: list[Attribution]) -> list[str]:
    return list(dict.fromkeys(r for a in attributions for r in a.rules))


def failure_tier(attributions: list[Attribution]) -> Tier | None:
    return most_authoritative([a.tier for a in attributions])
