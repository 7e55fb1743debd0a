"""The conformance tally and the terminal summary: passed / failed / error / unsupported / skipped per
api and kind.

The tally reads only what travels inside pytest's reports (``user_properties``), so under pytest-xdist
the controller counts the workers' results exactly as a single process counts its own.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from wireconf.judging.profile import PROFILES
from wireconf.reports.baseline import FIXED

OUTCOMES = ("passed", "failed", "error", "unsupported", "skipped")

PROP_CASE = "wireconf_case"
PROP_API = "wireconf_api"
PROP_KIND = "wireconf_kind"
PROP_RULES = "wireconf_rules"
PROP_UNSUPPORTED = "wireconf_unsupported"
"""Set on an unsupported case: ``True`` (a capability or concept the adapter does not declare), or
``INEXPRESSIBLE`` (the adapter, called, said the input has no form in its runtime)."""
INEXPRESSIBLE = "inexpressible"
PROP_PROBLEM = "wireconf_problem"
PROP_CORPUS = "wireconf_corpus"  # the corpus root of a case (reports name its version and hash)
PROP_CHECK = "wireconf_check"  # one of the two checks of rules.yaml (catalogue, coverage)
PROP_DIFFERENCES = "wireconf_differences"
"""JSON: the differences of a failing case, each with the rules it breaks and their tier
(``wireconf.judging.attribution.Attribution.to_data``); waived ones are not among them."""
PROP_EXPECTED_REJECTED = "wireconf_expected_rejected"
"""JSON: what the provider's pinned contract rejects in the request the case expects (the spec's own
request: ``wireconf.reports.provider_schema``), set on every such case, passing or not."""
PROP_TIER = "wireconf_tier"
"""The failure's tier (spec, vectors, project): the most authoritative among the rules it breaks."""
PROP_WAIVED = "wireconf_waived"
"""JSON: the differences of the case the baseline's waivers set aside, each with its waiver."""
PROP_FAILING_PROFILES = "wireconf_failing_profiles"
"""The profiles (comma-separated, of spec, interop, full) under which a failing case fails
(``wireconf.judging.decision.Decision.failing_profiles``): what each profile's figure counts."""
PROP_OUTSIDE_PROFILE = "wireconf_outside_profile"
"""Set (to the profile) when a failure breaks no rule of ``--profile`` and was reported as xfailed."""
PROP_STALE_WAIVERS = "wireconf_stale_waivers"
"""JSON: the labels of the baseline's waivers that list the case but matched none of its differences."""
PROP_BASELINE = "wireconf_baseline"
PROP_RECORDED = "wireconf_recorded"
"""Set by the CI gate (``wireconf.pytest_plugin.ci``): ``expected`` (a listed failure, reported as xfailed),
``fixed`` (a listed case that passed, reported as failed), ``regression`` / ``new`` / ``unlisted`` (an
unlisted failure; see ``wireconf.reports.baseline``), reported as failed or, when the gate lets it pass,
xfailed."""


def classify(report: pytest.TestReport, props: dict[str, Any] | None = None) -> str | None:
    """The conformance outcome a report settles, or ``None`` for a phase that settles nothing. ``props``:
    the report's user properties as a dict, where a caller has made it already (every report of every
    case is classified, by the tally and by the run's report alike)."""
    if props is None:
        props = dict(report.user_properties)  # the values wireconf's items put there
    baseline = props.get(PROP_BASELINE)
    if PROP_OUTSIDE_PROFILE in props and report.when == "call":  # a deviation the profile tolerates
        return "failed"
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


TIER_COLUMNS = ("spec", "vectors", "project", "unruled")
"""The failed cases again, by the tier of the rules their diff breaks (the spec's text, Prompty's
vectors, a project decision), and apart those whose differences no rule declares (unruled: no tier)."""
TOP_CAUSES = 10
MORE_CAUSES = "all of them in the run's report (--report RUN.jsonl; wireconf report RUN.jsonl --html PAGE)"
"""Where the causes past ``TOP_CAUSES`` are: the report of this run, never ``wireconf findings``, which
judges wireconf's own list of runtimes, not the one under test."""


@dataclass
class Tally:
    counts: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    failed_by_tier: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    failures: list[tuple[str, list[dict[str, Any]]]] = field(default_factory=list)
    problems: int = 0
    checks: Counter[str] = field(default_factory=Counter)  # outcomes of the rules.yaml checks
    accepted: int = 0  # failures the baseline let pass: pytest says xfailed, the table says failed
    tolerated: int = 0  # failures outside --profile: pytest says xfailed, the table says failed
    representation: int = 0  # failures whose every difference a provider equivalence covers (interop)
    failing: Counter[str] = field(default_factory=Counter)
    """Failed cases by the profile under which they fail (``PROP_FAILING_PROFILES``): each profile's
    figure, equal to what pytest reports when run under that profile."""

    def record(self, report: pytest.TestReport) -> None:
        if report.passed and report.when != "call":  # settles nothing (``classify``), counts nothing
            return
        props: dict[str, Any] = dict(report.user_properties)
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
        outcome = classify(report, props)
        if outcome is None:
            return
        api, kind = props[PROP_API], props[PROP_KIND]
        self.counts[(api, kind, outcome)] += 1
        if outcome == "failed":
            profiles = props.get(PROP_FAILING_PROFILES)
            # a failure the verdict did not make (the harness's own exception in the call) fails them all
            self.failing.update(PROFILES if profiles is None else [p for p in profiles.split(",") if p])
            if PROP_DIFFERENCES in props:  # no tier: its differences break no declared rule (unruled)
                self.failed_by_tier[(api, kind, props.get(PROP_TIER) or "unruled")] += 1
            if PROP_DIFFERENCES in props:
                found = json.loads(props[PROP_DIFFERENCES])
                self.failures.append((props[PROP_CASE], found))
                if found and all(d.get("representation") for d in found):
                    self.representation += 1
            if getattr(report, "wasxfail", None) is not None:
                if PROP_OUTSIDE_PROFILE in props:
                    self.tolerated += 1
                else:
                    self.accepted += 1

    def rows(self) -> list[tuple[str, str, dict[str, int]]]:
        keys = sorted({(api, kind) for api, kind, _ in self.counts})
        return [(api, kind, self._row(api, kind)) for api, kind in keys]

    def _row(self, api: str, kind: str) -> dict[str, int]:
        row = {o: self.counts[(api, kind, o)] for o in OUTCOMES}
        return row | {t: self.failed_by_tier[(api, kind, t)] for t in TIER_COLUMNS}

    def totals(self) -> dict[str, int]:
        totals = {o: sum(n for (_, _, out), n in self.counts.items() if out == o) for o in OUTCOMES}
        return totals | {
            t: sum(n for (_, _, tier), n in self.failed_by_tier.items() if tier == t) for t in TIER_COLUMNS
        }

    def profiles(self) -> list[str]:
        """The figures of the spec profile (only rules of the spec's text), of the interop profile (what
        the provider would read alike) and of the full profile: each counts the cases that fail under
        it exactly as ``--profile`` would (``wireconf.judging.decision.under``), so a run under any
        profile fails as many cases as its figure says (pytest's failed, plus the failures a baseline
        lets pass)."""
        t = self.totals()
        judged = t["passed"] + t["failed"] + t["error"]
        spec, interop, full = (self.failing[p] for p in PROFILES)
        unruled = f", {t['unruled']} no rule (unruled: a defect of the corpus)" if t["unruled"] else ""
        untiered = spec - t["spec"]
        no_tier = (
            f" and {untiered} a difference no rule's tier excuses (unruled, a request the provider's "
            "pinned contract rejects, a stale waiver)"
            if untiered
            else ""
        )
        return [
            f"spec profile: {judged - spec - t['error']} of {judged} judged cases conform to the spec's "
            f"text; {spec} fail under it ({t['spec']} a rule of its text{no_tier}), {t['error']} error",
            f"interop profile: {judged - interop - t['error']} of {judged} judged cases are what the "
            f"provider would read as the spec's requests; {interop} fail under it, {t['error']} error; "
            f"{self.representation} of the failures differ only in representation (a provider "
            "equivalence covers every difference)",
            f"full profile: {t['passed']} of {judged} judged cases pass; {full} fail ({t['spec']} the "
            f"spec's text, {t['vectors']} Prompty's vectors, {t['project']} a project decision{unruled}), "
            f"{t['error']} error",
        ]

    def causes(self, limit: int = TOP_CAUSES) -> list[str]:
        """The most frequent root causes: failures sharing the rule broken and the difference."""
        from wireconf.reports.causes import group_causes

        causes = group_causes(self.failures)
        if not causes:
            return []
        lines = [f"root causes ({len(causes)}: failures that share the rule broken and the difference):"]
        for cause in causes[:limit]:
            rules = cause.rules_text()
            lines.append(
                f"  {len(cause.cases):>4} case(s)  {rules} [{cause.tier_text}]  {cause.example[:140]}"
            )
        if len(causes) > limit:
            lines.append(f"  ... {len(causes) - limit} more: {MORE_CAUSES}")
        return lines

    def render(self, impl_label: str) -> list[str]:
        rows = self.rows()
        if not rows and not self.problems:
            return []
        columns = (*OUTCOMES, *TIER_COLUMNS)
        head = ("api", "kind", *columns)
        table = [head, *[(api, kind, *(str(c[o]) for o in columns)) for api, kind, c in rows]]
        table.append(("total", "", *(str(v) for v in self.totals().values())))
        widths = [max(len(r[i]) for r in table) for i in range(len(head))]
        lines = [f"implementation: {impl_label}"]
        for index, row in enumerate(table):
            cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
            cells += [cell.rjust(w) for cell, w in zip(row[2:], widths[2:], strict=True)]
            lines.append("  ".join(cells).rstrip())
            if index == 0 or index == len(table) - 2:
                lines.append("-" * len(lines[-1]))
        lines.append(
            "(spec, vectors, project: the failed cases by the tier of the rules their diff breaks; unruled: "
            "no rule declares their differences, no tier)"
        )
        lines += self.profiles()
        lines += self.causes()
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
        if self.tolerated:
            lines.append(
                f"pytest says xfailed for the {self.tolerated} failure(s) outside the profile; "
                "the table counts them as failed"
            )
        unsupported = self.totals()["unsupported"]
        if unsupported:
            lines.append(f"pytest says skipped for the {unsupported} unsupported case(s)")
        return lines


def late_faults_section(faults: list[str]) -> list[str]:
    """The session error for messages an ``exec:`` runtime sent about calls of cases already reported
    (``ExecAdapter.late_faults``): each names its case; the run fails, since the runtime's conversation
    was not the one its verdicts were given on, though no case could be charged for it any more."""
    if not faults:
        return []
    return [
        f"error: the runtime sent {len(faults)} message(s) about calls of cases already reported "
        "(the run fails; each is that case's fault, not the case running when it came):",
        *(f"  {fault}" for fault in faults),
    ]


LATE_FAULTS_OUTPUT = "wireconf_late_faults"
"""The key under which an xdist worker sends its runtime's late faults to the controller, in the
output xdist carries when the worker's session ends (``config.workeroutput``)."""
_RECEIVED = pytest.StashKey[list[str]]()
"""On an xdist controller: the late faults its workers sent."""


def send_late_faults(config: pytest.Config, own: list[str]) -> None:
    """On an xdist worker: its runtime's late faults go to the controller, which alone reports and
    sets the run's status (a worker's own status is not the run's)."""
    output = getattr(config, "workeroutput", None)
    if isinstance(output, dict) and own:
        output[LATE_FAULTS_OUTPUT] = list(own)


def receive_late_faults(config: pytest.Config, workeroutput: object) -> None:
    """On an xdist controller, as a worker goes down: the late faults it sent (none from a worker that
    crashed: it sent no output)."""
    sent = workeroutput.get(LATE_FAULTS_OUTPUT) if isinstance(workeroutput, dict) else None
    if isinstance(sent, list):
        config.stash.setdefault(_RECEIVED, []).extend(str(fault) for fault in sent)


def late_faults(config: pytest.Config, own: list[str]) -> list[str]:
    """The run's late faults: those of this process's runtime, and on an xdist controller those its
    workers' runtimes sent."""
    return [*own, *config.stash.get(_RECEIVED, [])]
