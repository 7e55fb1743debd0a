"""The conformance tally and the terminal summary: passed / failed / error / unsupported / skipped per
api and kind.

The tally reads only what travels inside pytest's reports (``user_properties``), so under pytest-xdist
the controller counts the workers' results exactly as a single process counts its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness.reports.baseline import FIXED

OUTCOMES = ("passed", "failed", "error", "unsupported", "skipped")

PROP_CASE = "wireconf_case"
PROP_API = "wireconf_api"
PROP_KIND = "wireconf_kind"
PROP_RULES = "wireconf_rules"
PROP_UNSUPPORTED = "wireconf_unsupported"
PROP_PROBLEM = "wireconf_problem"
PROP_CORPUS = "wireconf_corpus"  # the corpus root of a case (reports name its version and hash)
PROP_CHECK = "wireconf_check"  # one of the two checks of rules.yaml (catalogue, coverage)
PROP_BASELINE = "wireconf_baseline"
PROP_RECORDED = "wireconf_recorded"
"""Set by the CI gate (``harness.pytest_plugin.ci``): ``expected`` (a listed failure, reported as xfailed),
``fixed`` (a listed case that passed, reported as failed), ``regression`` / ``new`` / ``unlisted`` (an
unlisted failure; see ``harness.reports.baseline``), reported as failed or, when the gate lets it pass,
xfailed."""


def classify(report: Any) -> str | None:
    """The conformance outcome a report settles, or ``None`` for a phase that settles nothing."""
    props = dict(report.user_properties)
    baseline = props.get(PROP_BASELINE)
    if baseline == FIXED:
        return "passed"
    if baseline is not None:  # still a deviation; the gate only decided what it costs the run
        return "failed"
    if report.skipped:
        return "unsupported" if props.get(PROP_UNSUPPORTED) else "skipped"
    if report.when == "call":
        return "passed" if report.passed else "failed"
    if report.failed:  # setup or teardown: the harness could not get a verdict
        return "error"
    return None


@dataclass
class Tally:
    counts: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    problems: int = 0
    checks: Counter[str] = field(default_factory=Counter)  # outcomes of the rules.yaml checks
    accepted: int = 0  # failures the baseline let pass: pytest says xfailed, the table says failed

    def record(self, report: Any) -> None:
        props = dict(report.user_properties)
        if PROP_PROBLEM in props:
            if report.when == "call" and report.failed:
                self.problems += 1
            return
        if PROP_CHECK in props:
            if report.when == "call" or report.failed:
                self.checks[report.outcome] += 1
            return
        if PROP_CASE not in props:
            return
        outcome = classify(report)
        if outcome is not None:
            self.counts[(props[PROP_API], props[PROP_KIND], outcome)] += 1
            if outcome == "failed" and getattr(report, "wasxfail", None) is not None:
                self.accepted += 1

    def rows(self) -> list[tuple[str, str, dict[str, int]]]:
        keys = sorted({(api, kind) for api, kind, _ in self.counts})
        return [(api, kind, {o: self.counts[(api, kind, o)] for o in OUTCOMES}) for api, kind in keys]

    def totals(self) -> dict[str, int]:
        return {o: sum(n for (_, _, out), n in self.counts.items() if out == o) for o in OUTCOMES}

    def render(self, impl_label: str) -> list[str]:
        rows = self.rows()
        if not rows and not self.problems:
            return []
        head = ("api", "kind", *OUTCOMES)
        table = [head, *[(api, kind, *(str(c[o]) for o in OUTCOMES)) for api, kind, c in rows]]
        table.append(("total", "", *(str(v) for v in self.totals().values())))
        widths = [max(len(r[i]) for r in table) for i in range(len(head))]
        lines = [f"implementation: {impl_label}"]
        for index, row in enumerate(table):
            cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
            cells += [cell.rjust(w) for cell, w in zip(row[2:], widths[2:], strict=True)]
            lines.append("  ".join(cells).rstrip())
            if index == 0 or index == len(table) - 2:
                lines.append("-" * len(lines[-1]))
        if self.problems:
            lines.append(f"corpus problems (cases that could not be loaded): {self.problems}")
        lines += self._reconciliation()
        return lines

    def _reconciliation(self) -> list[str]:
        """Why pytest's own count differs from the table's: items that are not cases, outcomes it names
        otherwise."""
        lines = []
        if self.checks:
            outcomes = ", ".join(f"{n} {o}" for o, n in sorted(self.checks.items()))
            lines.append(
                f"pytest also counts the {sum(self.checks.values())} checks of rules.yaml "
                f"(catalogue, coverage; {outcomes}), which are not cases"
            )
        if self.problems:
            lines.append(f"pytest counts the {self.problems} corpus problem(s) as failed items")
        if self.accepted:
            lines.append(
                f"pytest says xfailed for the {self.accepted} failure(s) the baseline lets pass; "
                "the table counts them as failed"
            )
        unsupported = self.totals()["unsupported"]
        if unsupported:
            lines.append(f"pytest says skipped for the {unsupported} unsupported case(s)")
        return lines
