"""The rule each difference of a failing case breaks, and so the failure's tier.

A case cites the rules it was written to check, but a runtime can deviate anywhere in what the case
compares: an unexpected top-level ``stream`` key in a case about message content breaks
``7.1.7/no-other-keys``, which that case does not cite. Every rule declares the differences it governs
(``governs`` in ``cases/rules.yaml``: subject, path, kinds of change, apis and kinds, and the conditions
on the case's input under which it applies). For each difference:

1. the rules whose declarations match it and apply to the case (``when``; a declaration marked
   ``if_cited`` only in the cases that cite its rule), preferring those the case cites, then the most
   specific declaration (``$.max_tokens`` before ``$.*``, a declaration with conditions before one
   without): the difference is *declared* to break them;
2. else the difference is *unruled*: no rule requires what the expectation says there. The case still
   fails (the comparison stays exact), but the failure names no rule and takes no tier: it is a defect of
   the corpus (a rule's declaration is missing, or the expectation asks for more than any rule does),
   never a claim against the runtime.

A failure's tier is the most authoritative tier among the rules its differences break; a rule the case
only cites never raises it.

Two more facts travel with each attribution. A difference the api's provider treats as the same request
(``wireconf.providers.equivalence``) names that equivalence (``representation``): ``--profile interop``
does not fail on it. A request the provider's pinned contract rejects (change ``provider-rejects``,
``wireconf.judging.schema_check``) breaks no rule of the catalogue and is not unruled either: its basis
is ``provider-schema``, and it fails in every profile.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wireconf.corpus.rules import TIERS, Catalogue, Tier
from wireconf.differences import Difference

DECLARED = "declared"
UNRULED = "unruled"
PROVIDER_SCHEMA = "provider-schema"


@dataclass(frozen=True)
class Attribution:
    difference: Difference
    rules: tuple[str, ...]
    basis: str  # DECLARED, UNRULED or PROVIDER_SCHEMA
    tier: Tier | None  # the most authoritative tier among ``rules``; None when unruled
    api: str = ""
    representation: str = ""
    """The provider equivalence that covers the difference (``""``: none): a difference the provider
    reads as the same request, which ``--profile interop`` does not fail on."""

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
        if self.representation:
            data["representation"] = self.representation
        return data


def most_authoritative(tiers: list[Tier | None]) -> Tier | None:
    known = [t for t in tiers if t is not None]
    return min(known, key=TIERS.index) if known else None


def _tier(rule_ids: tuple[str, ...], catalogue: Catalogue) -> Tier | None:
    return most_authoritative([catalogue.rules[r].tier for r in rule_ids if r in catalogue.rules])


def attribute_one(
    difference: Difference,
    kind: str,
    api: str,
    cited: list[str],
    catalogue: Catalogue,
    case: Mapping[str, Any] | None = None,
    equivalence: str | None = None,
) -> Attribution:
    """The rules ``difference`` breaks in a case of ``kind`` and ``api`` that cites ``cited`` and is
    written as ``case`` (for the declarations' ``when``; ``None`` when the case is not at hand: a
    conditional declaration then never applies). ``equivalence``: the provider equivalence found for it
    among the case's other differences (``representations``); ``None``: look for one on its own."""
    from wireconf.providers.equivalence import covering
    from wireconf.providers.registry import equivalences_of

    if difference.change == "provider-rejects":
        return Attribution(difference, (), PROVIDER_SCHEMA, None, api)
    if equivalence is None:
        found = covering(difference, equivalences_of(api), case)
        equivalence = found.name if found is not None else ""
    representation = equivalence
    matches = [
        (rule_id, g.specificity)
        for rule_id, g in catalogue.governing
        if g.matches(
            difference.subject,
            difference.path,
            difference.change,
            difference.shape,
            kind,
            api,
            difference.variant,
        )
        and (rule_id in cited or not g.if_cited)
        and (not g.when or (case is not None and g.applies_to(case)))
    ]
    if not matches:
        return Attribution(difference, (), UNRULED, None, api, representation)
    pool = [m for m in matches if m[0] in cited] or matches
    best = max(specificity for _, specificity in pool)
    rules = tuple(dict.fromkeys(rule_id for rule_id, s in pool if s == best))
    return Attribution(difference, rules, DECLARED, _tier(rules, catalogue), api, representation)


def attribute(
    differences: list[Difference],
    kind: str,
    api: str,
    cited: list[str],
    catalogue: Catalogue,
    case: Mapping[str, Any] | None = None,
) -> list[Attribution]:
    """Each difference with the rules it breaks (see the module docstring)."""
    from wireconf.providers.equivalence import representations
    from wireconf.providers.registry import equivalences_of

    found = representations(differences, equivalences_of(api), case)
    return [
        attribute_one(d, kind, api, cited, catalogue, case, e.name if e is not None else "")
        for d, e in zip(differences, found, strict=True)
    ]


def unruled(attributions: list[Attribution]) -> list[Attribution]:
    return [a for a in attributions if a.basis == UNRULED]


def representation(attributions: list[Attribution]) -> list[Attribution]:
    """The differences a provider equivalence covers."""
    return [a for a in attributions if a.representation]


def broken_rules(attributions: list[Attribution]) -> list[str]:
    return list(dict.fromkeys(r for a in attributions for r in a.rules))


def failure_tier(attributions: list[Attribution]) -> Tier | None:
    return most_authoritative([a.tier for a in attributions])
