"""The shape every rendering of a report shares: runtimes by (kind, api) with counts, and the failures.

Counts use the conformance outcomes, named as the terminal summary names them: passed, failed, error,
unsupported (a capability the runtime does not declare) and skipped (a case skipped for another
reason). A failure the baseline lets pass is still a failure; it is marked ``known`` (expected) so that
a reader can tell what is new, and the baseline's name for every other failure (regression, new) is
shown beside it. Failures are also counted by their tier (the most authoritative tier of the rules their
diff breaks), which gives each runtime three figures: the spec profile (cases that break no rule of the
spec's text), the interop profile (cases that pass once differences the provider reads alike are set
aside as representation) and the full profile (cases that pass).

A runtime is its name and version; when the merged reports ran it under several Pythons (a CI matrix),
each Python is a runtime of its own. Every runtime names the corpus (version and hash) it was judged
against.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from wireconf.reports.jsonl import CaseRecord

COLUMNS = ("passed", "failed", "error", "unsupported", "skipped")
TIERS = ("spec", "vectors", "project")
UNRULED = "unruled"
"""A failure whose differences no rule declares: it has no tier and is counted apart (a defect of the
corpus, not a claim against the runtime)."""

BASELINE_MARKS = {
    "expected": "known",
    "regression": "regression",
    "new": "new",
    "unlisted": "not in baseline",
    "fixed": "fixed",
}
"""How each baseline category reads in a report (``wireconf.reports.baseline``)."""


def column(status: str) -> str:
    return status if status in COLUMNS else "error"


def baseline_mark(record: CaseRecord) -> str | None:
    """``known``, ``regression``, ``new (allowed)``, ...: what the gate made of a failing case."""
    mark = BASELINE_MARKS.get(record.baseline or "")
    if mark is not None and record.baseline == "new" and record.gate_accepted:
        mark += " (allowed)"
    return mark


@dataclass
class RuntimeSummary:
    label: str
    impl: str
    version: str
    counts: Counter[str] = field(default_factory=Counter)
    known: int = 0  # failures the baseline expects
    failures: list[CaseRecord] = field(default_factory=list)
    fixed: list[CaseRecord] = field(default_factory=list)  # listed in the baseline as failing, now passing
    records: list[CaseRecord] = field(default_factory=list)
    tiers: Counter[str] = field(default_factory=Counter)  # failed cases by tier
    corpora: Counter[str] = field(default_factory=Counter)  # corpus label -> cases judged against it
    python: str | None = None
    contracts: dict[str, str] = field(default_factory=dict)  # provider -> the pinned contract that judged
    sdks: dict[str, str] = field(default_factory=dict)  # provider -> the SDK that parsed its recordings

    @property
    def judged(self) -> int:
        return self.counts["passed"] + self.counts["failed"] + self.counts["error"]

    @property
    def pass_rate(self) -> float:
        return self.counts["passed"] / self.judged if self.judged else 0.0

    @property
    def spec_conform(self) -> int:
        """Judged cases that do not fail under ``--profile spec``: passes, and failures that break only
        rules of the vectors or project tiers (``CaseRecord.fails_profile``). A failure with a difference
        of no tier (unruled, a request the provider's pinned contract rejects) or a stale waiver fails
        every profile, so it is not counted as conforming, whatever the tier of its other differences."""
        return self.counts["passed"] + self._excused("spec")

    def _excused(self, profile: str) -> int:
        """Failures that do not fail under ``profile``."""
        return sum(1 for r in self.records if r.status == "failed" and not r.fails_profile(profile))

    @property
    def spec_rate(self) -> float:
        return self.spec_conform / self.judged if self.judged else 0.0

    @property
    def interop_pass(self) -> int:
        """Judged cases the provider would treat as the spec's: passes, and failures whose differences
        are all representation (a provider equivalence covers each; ``--profile interop``)."""
        return self.counts["passed"] + self._excused("interop")

    @property
    def interop_rate(self) -> float:
        return self.interop_pass / self.judged if self.judged else 0.0

    def profiles_text(self) -> str:
        """``spec profile 120/124 (97%), interop profile 110/124 (89%), full profile 100/124 (81%)``."""
        return (
            f"spec profile {self.spec_conform}/{self.judged} ({self.spec_rate:.0%}), "
            f"interop profile {self.interop_pass}/{self.judged} ({self.interop_rate:.0%}), "
            f"full profile {self.counts['passed']}/{self.judged} ({self.pass_rate:.0%})"
        )

    def tiers_text(self) -> str:
        """``3 spec, 0 vectors, 1 project`` (and ``, 2 unruled`` when some failure has no rule)."""
        shown = [*TIERS, UNRULED] if self.tiers[UNRULED] else TIERS
        return ", ".join(f"{self.tiers[t]} {t}" for t in shown)

    @property
    def corpus(self) -> str:
        """The corpus this runtime was judged against (several, when merged reports disagree)."""
        return " + ".join(sorted(self.corpora)) or "unknown corpus"


@dataclass
class Matrix:
    runtimes: list[RuntimeSummary]
    sections: list[tuple[str, str]]
    cells: dict[tuple[str, str, str], Counter[str]]

    def cell(self, runtime: RuntimeSummary, section: tuple[str, str]) -> Counter[str]:
        return self.cells.get((runtime.label, *section), Counter())

    def failures_in(self, runtime: RuntimeSummary, section: tuple[str, str]) -> list[CaseRecord]:
        return [r for r in runtime.failures if (r.kind or "-", r.api or "-") == section]

    @property
    def corpora(self) -> list[str]:
        return sorted({label for rt in self.runtimes for label in rt.corpora})

    def judged_by_text(self) -> str:
        """``requests checked against openai: openai-openapi f85dbe22 (API 2.3.0), …; recordings parsed
        by openai 3.57.0, …`` (from the records: empty for reports older than that)."""
        contracts = {k: v for rt in self.runtimes for k, v in sorted(rt.contracts.items())}
        sdks = sorted({v for rt in self.runtimes for v in rt.sdks.values()})
        if not contracts and not sdks:
            return ""
        said = ", ".join(f"{k}: {v}" for k, v in contracts.items())
        parsed = ", ".join(sdks)
        return (
            f"Requests checked against the pinned provider contracts ({said}); recordings parsed by {parsed}."
        )


def _labels(records: list[CaseRecord]) -> dict[tuple[str, str, str | None], str]:
    """Each (impl, version, python) → its label; the Python is named only where it tells runtimes apart."""
    pythons: dict[tuple[str, str], set[str | None]] = {}
    for record in records:
        pythons.setdefault((record.impl, record.version), set()).add(record.python)
    labels = {}
    for (impl, version), seen in pythons.items():
        for python in seen:
            suffix = f" (Python {python or 'unknown'})" if len(seen) > 1 else ""
            labels[(impl, version, python)] = f"{impl} {version}{suffix}"
    return labels


def build_matrix(records: list[CaseRecord]) -> Matrix:
    labels = _labels(records)
    runtimes: dict[str, RuntimeSummary] = {}
    cells: dict[tuple[str, str, str], Counter[str]] = {}
    for record in sorted(records, key=lambda r: (r.runtime, r.python or "", r.kind or "", r.api or "", r.id)):
        label = labels[(record.impl, record.version, record.python)]
        summary = runtimes.setdefault(label, RuntimeSummary(label, record.impl, record.version))
        summary.python = record.python
        col = column(record.status)
        summary.records.append(record)
        summary.counts[col] += 1
        if record.corpus_label:
            summary.corpora[record.corpus_label] += 1
        judged = record.judged_by or {}
        if "provider" in judged:
            if "contract" in judged:
                summary.contracts.setdefault(judged["provider"], judged["contract"])
            if "sdk" in judged:
                summary.sdks.setdefault(judged["provider"], judged["sdk"])
        section = (record.kind or "-", record.api or "-")
        cells.setdefault((label, *section), Counter())[col] += 1
        if col == "failed":
            if record.tier in TIERS:
                summary.tiers[str(record.tier)] += 1
            elif record.differences:  # differences, none of them declared by a rule
                summary.tiers[UNRULED] += 1
            elif record.differences is None:  # a report older than attributions: counted as before
                summary.tiers["spec"] += 1
        if record.baseline == "fixed":
            summary.fixed.append(record)
        if col in ("failed", "error"):
            summary.failures.append(record)
            if record.baseline == "expected":
                summary.known += 1
                cells[(label, *section)]["known"] += 1
    sections = sorted({(kind, api) for _, kind, api in cells})
    return Matrix(list(runtimes.values()), sections, cells)
