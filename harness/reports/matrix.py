"""The shape every rendering of a report shares: runtimes by (kind, api) with counts, and the failures.

Counts use the conformance outcomes: passed, failed, error, and skipped (a capability the runtime does
not declare, or a case skipped for another reason). A failure the baseline expects is still a failure;
it is marked ``known`` so that a reader can tell what is new. Failures are also counted by their tier
(the most authoritative tier of the rules their diff breaks), which gives each runtime two figures:
the spec profile (cases that break no rule of the spec's text) and the full profile (cases that pass).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from harness.reports.jsonl import CaseRecord

COLUMNS = ("passed", "failed", "error", "skipped")
TIERS = ("spec", "vectors", "project")


def column(status: str) -> str:
    return "skipped" if status in ("unsupported", "skipped") else status


@dataclass
class RuntimeSummary:
    label: str
    impl: str
    version: str
    counts: Counter[str] = field(default_factory=Counter)
    known: int = 0  # failures the baseline expects
    failures: list[CaseRecord] = field(default_factory=list)
    records: list[CaseRecord] = field(default_factory=list)
    tiers: Counter[str] = field(default_factory=Counter)  # failed cases by tier

    @property
    def judged(self) -> int:
        return self.counts["passed"] + self.counts["failed"] + self.counts["error"]

    @property
    def pass_rate(self) -> float:
        return self.counts["passed"] / self.judged if self.judged else 0.0

    @property
    def spec_conform(self) -> int:
        """Judged cases whose diff breaks no rule of the spec's text (passes, and failures of the
        vectors or project tiers only)."""
        return self.judged - self.tiers["spec"] - self.counts["error"]

    @property
    def spec_rate(self) -> float:
        return self.spec_conform / self.judged if self.judged else 0.0

    def profiles_text(self) -> str:
        """``spec profile 120/124 (97%), full profile 100/124 (81%)``."""
        return (
            f"spec profile {self.spec_conform}/{self.judged} ({self.spec_rate:.0%}), "
            f"full profile {self.counts['passed']}/{self.judged} ({self.pass_rate:.0%})"
        )

    def tiers_text(self) -> str:
        return ", ".join(f"{self.tiers[t]} {t}" for t in TIERS)


@dataclass
class Matrix:
    runtimes: list[RuntimeSummary]
    sections: list[tuple[str, str]]
    cells: dict[tuple[str, str, str], Counter[str]]

    def cell(self, runtime: RuntimeSummary, section: tuple[str, str]) -> Counter[str]:
        return self.cells.get((runtime.label, *section), Counter())

    def failures_in(self, runtime: RuntimeSummary, section: tuple[str, str]) -> list[CaseRecord]:
        return [r for r in runtime.failures if (r.kind or "-", r.api or "-") == section]


def build_matrix(records: list[CaseRecord]) -> Matrix:
    runtimes: dict[str, RuntimeSummary] = {}
    cells: dict[tuple[str, str, str], Counter[str]] = {}
    for record in sorted(records, key=lambda r: (r.runtime, r.kind or "", r.api or "", r.id)):
        summary = runtimes.setdefault(
            record.runtime, RuntimeSummary(record.runtime, record.impl, record.version)
        )
        col = column(record.status)
        summary.records.append(record)
        summary.counts[col] += 1
        section = (record.kind or "-", record.api or "-")
        cells.setdefault((record.runtime, *section), Counter())[col] += 1
        if col == "failed":
            summary.tiers[record.tier if record.tier in TIERS else "spec"] += 1
        if col in ("failed", "error"):
            summary.failures.append(record)
            if record.baseline == "expected":
                summary.known += 1
                cells[(record.runtime, *section)]["known"] += 1
    sections = sorted({(kind, api) for _, kind, api in cells})
    return Matrix(list(runtimes.values()), sections, cells)
