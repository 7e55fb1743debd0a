"""Root causes: failures grouped by the rule broken and the difference, with counts.

Three harmless habits of a runtime (``stream: false`` in every body, a default ``max_tokens``, ...)
can fail a hundred cases each; a maintainer wants to see three lines, not three hundred diffs. Two
differences share a cause when they have the same signature (the same side: request, result, ...; the
same place with array indices generalised, ``$.messages[*].content``; the same kind of difference and
the same shape, ``array → string`` or the exception's class) and break the same rule(s). A difference
no rule declares is charged to its case's cited rules, which differ from case to case: such
differences are grouped by their signature and api, and the group names every rule they were charged
to, most frequent first. Values may differ from case to case; each group keeps the texts it saw.

The terminal summary, the HTML report and the findings page all group with ``group_causes``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

TIER_ORDER = ("spec", "vectors", "project")


@dataclass
class Cause:
    rules: tuple[str, ...]
    tier: str | None
    signature: str
    cases: list[str] = field(default_factory=list)
    texts: Counter[str] = field(default_factory=Counter)

    def rules_text(self, limit: int = 3, code: bool = False) -> str:
        """The rules broken (those most often charged first), at most ``limit`` of them."""
        shown = [f"`{r}`" if code else r for r in self.rules[:limit]]
        more = f" (+{len(self.rules) - limit} more cited)" if len(self.rules) > limit else ""
        return ", ".join(shown) + more

    @property
    def example(self) -> str:
        """The most frequent diff line; ``(+N variants)`` when the values vary."""
        text, _ = self.texts.most_common(1)[0]
        first = text.splitlines()[0] if text else self.signature
        return first + (f" (+{len(self.texts) - 1} variant(s))" if len(self.texts) > 1 else "")


def group_causes(failures: Iterable[tuple[str, list[dict[str, Any]]]]) -> list[Cause]:
    """``failures``: (case id, its attributed differences). The causes, most cases first, then by the
    tier of the rules broken (spec first) and the signature."""
    groups: dict[tuple[tuple[str, ...], str], Cause] = {}
    charged: dict[tuple[tuple[str, ...], str], Counter[str]] = {}
    for case_id, differences in failures:
        for difference in differences:
            rules = tuple(difference.get("rules") or ())
            signature = str(difference.get("signature", ""))
            unruled = difference.get("basis") == "unruled"
            key = ((f"(unruled, {difference.get('api', '')})",), signature) if unruled else (rules, signature)
            cause = groups.setdefault(key, Cause(rules, difference.get("tier"), signature))
            if not cause.cases or cause.cases[-1] != case_id:
                cause.cases.append(case_id)
                charged.setdefault(key, Counter()).update(rules)
                cause.tier = _most_authoritative(cause.tier, difference.get("tier"))
            cause.texts[str(difference.get("text", ""))] += 1
    for key, cause in groups.items():
        cause.rules = tuple(rule for rule, _ in charged[key].most_common())
    return sorted(
        groups.values(),
        key=lambda c: (-len(c.cases), _tier_rank(c.tier), c.signature, c.rules),
    )


def _most_authoritative(a: str | None, b: str | None) -> str | None:
    return a if _tier_rank(a) <= _tier_rank(b) else b


def _tier_rank(tier: str | None) -> int:
    return TIER_ORDER.index(tier) if tier in TIER_ORDER else len(TIER_ORDER)
