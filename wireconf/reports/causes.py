"""Root causes: failures grouped by the rule broken and the difference, with counts.

Three harmless habits of a runtime (``stream: false`` in every body, a default ``max_tokens``, ...)
can fail a hundred cases each; a maintainer wants to see three lines, not three hundred diffs. Two
differences share a cause when they have the same signature (the same side: request, result, ...; the
same place with array indices generalised, ``$.messages[*].content``; the same kind of difference and
the same shape, ``array → string`` or the exception's class) and break the same rule(s): the rules that
declare they govern it (``wireconf.judging.attribution``), never the rules the case merely cites. A
difference no rule declares is *unruled*: grouped by its signature and api, it names no rule and has no
tier ("no rule requires this": a defect of the corpus). Values may differ from case to case; each group
keeps the texts it saw.

The terminal summary, the HTML report and the findings page all group with ``group_causes``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

TIER_ORDER = ("spec", "vectors", "project")
NO_RULE = "no rule requires this"
PROVIDER_REJECTS = "the provider's contract rejects this request"
"""Where a difference's basis is ``provider-schema`` (``wireconf.judging.schema_check``): no rule of the
catalogue, not unruled either, failing in every profile."""
UNRULED_NOTE = (
    "unruled: no rule declares that it governs the difference, so it has no tier; a defect of the corpus "
    "(a declaration is missing, or the expectation asks for more than any rule does), not a claim "
    "against the runtime"
)


@dataclass
class Cause:
    rules: tuple[str, ...]
    tier: str | None
    signature: str
    cases: list[str] = field(default_factory=list)
    texts: Counter[str] = field(default_factory=Counter)
    basis: str = ""

    @property
    def rejected(self) -> bool:
        """A request the provider's pinned contract rejects."""
        return self.basis == "provider-schema"

    @property
    def unruled(self) -> bool:
        """Differences no rule declares: a defect of the corpus, not a claim against the runtime."""
        return not self.rules and not self.rejected

    @property
    def tier_text(self) -> str:
        """The tier, ``unruled`` (no rule, no tier) for differences no rule declares."""
        if self.rejected:
            return "provider-schema"
        return "unruled" if not self.rules else (self.tier or "?")

    def rules_text(self, code: bool = False) -> str:
        """The rules broken, or ``no rule requires this`` for unruled differences."""
        if self.rejected:
            return PROVIDER_REJECTS
        if not self.rules:
            return NO_RULE
        return ", ".join(f"`{r}`" if code else r for r in self.rules)

    @property
    def example(self) -> str:
        """The most frequent diff line; ``(+N variants)`` when the values vary."""
        text, _ = self.texts.most_common(1)[0]
        first = text.splitlines()[0] if text else self.signature
        return first + (f" (+{len(self.texts) - 1} variant(s))" if len(self.texts) > 1 else "")


def group_causes(failures: Iterable[tuple[str, list[dict[str, Any]]]]) -> list[Cause]:
    """``failures``: (case id, its attributed differences). The causes, most cases first, then by the
    tier of the rules broken (spec first) and the signature."""
    groups: dict[tuple[Any, ...], Cause] = {}
    for case_id, differences in failures:
        for difference in differences:
            rules = tuple(difference.get("rules") or ())
            signature = str(difference.get("signature", ""))
            # an unruled difference's group is its api's: the same path means different things per api
            key: tuple[Any, ...] = (rules, signature, "" if rules else str(difference.get("api", "")))
            basis = str(difference.get("basis", ""))
            key = (*key, basis)
            tier = difference.get("tier") if rules else None
            cause = groups.setdefault(key, Cause(rules, tier, signature, basis=basis))
            if not cause.cases or cause.cases[-1] != case_id:
                cause.cases.append(case_id)
                if rules:
                    cause.tier = _most_authoritative(cause.tier, difference.get("tier"))
            cause.texts[str(difference.get("text", ""))] += 1
    return sorted(
        groups.values(),
        key=lambda c: (-len(c.cases), _tier_rank(c.tier), c.signature, c.rules),
    )


def _most_authoritative(a: str | None, b: str | None) -> str | None:
    return a if _tier_rank(a) <= _tier_rank(b) else b


def _tier_rank(tier: str | None) -> int:
    return TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER)
