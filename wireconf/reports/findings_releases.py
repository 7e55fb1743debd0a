"""The history across releases (``wireconf findings --releases N``): for each package a
runtime's ``releases`` names, the counts of each release judged, and per root cause (the rule broken and
the difference, as *Root causes by difference* groups them: ``wireconf.reports.causes``) the first
release judged that has it and the release that fixed it.

A release whose run could not start (its environment could not be made, or the adapter cannot load with
that release's API) is an error for that release, shown as such; it says nothing of the causes, so the
first and fixed releases are read from the releases that ran."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from wireconf.reports.causes import group_causes
from wireconf.reports.jsonl import CaseRecord

CauseKey = tuple[tuple[str, ...], str]


@dataclass
class ReleaseRun:
    """One release's run: the runtime, the package and version varied, the apis judged (all when empty),
    its records, and why it did not run (``None`` when it did)."""

    runtime: str
    package: str
    version: str
    apis: tuple[str, ...]
    records: list[CaseRecord]
    problem: str | None = None

    def counts(self) -> Counter[str]:
        return Counter(r.status for r in self.records if r.status != "unsupported")

    def causes(self) -> dict[CauseKey, int]:
        """Its root causes, each with the number of cases it fails."""
        failed = ((r.id, r.differences or []) for r in self.records if r.status == "failed")
        return {(cause.rules, cause.signature): len(cause.cases) for cause in group_causes(failed)}


@dataclass
class CauseHistory:
    key: CauseKey
    cases: list[int | None]
    """Cases per release, oldest first; ``None`` for a release that did not run."""
    first: str | None
    fixed: str | None


def _order(version: str) -> tuple[int, Version | str]:
    try:
        return (0, Version(version))
    except InvalidVersion:
        return (1, version)


def series_history(runs: list[ReleaseRun]) -> tuple[list[ReleaseRun], list[CauseHistory]]:
    """One series' runs, oldest release first, and the history of every root cause any of them has: its
    first release (the oldest that ran and has it) and the release that fixed it (the first that ran after
    the last that has it; ``None`` while the newest that ran still has it)."""
    ordered = sorted(runs, key=lambda run: _order(run.version))
    found = [None if run.problem else run.causes() for run in ordered]
    keys = sorted({key for causes in found if causes for key in causes}, key=lambda k: (k[0], k[1]))
    histories = []
    for key in keys:
        cases = [None if causes is None else causes.get(key, 0) for causes in found]
        having = [n for n, count in enumerate(cases) if count]
        later = [n for n, count in enumerate(cases) if count == 0 and n > having[-1]]
        histories.append(
            CauseHistory(key, cases, ordered[having[0]].version, ordered[later[0]].version if later else None)
        )
    return ordered, histories


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_release_history(runs: list[ReleaseRun]) -> list[str]:
    """The page's section (no lines when no release was judged)."""
    if not runs:
        return []
    series: dict[tuple[str, str], list[ReleaseRun]] = {}
    for run in runs:
        series.setdefault((run.runtime, run.package), []).append(run)
    lines = [
        "## Counts per release",
        "",
        "Each package below was judged at its newest releases, each in an environment of its own with the "
        "runtime's other pins (`wireconf findings --releases N`), on the cases of the APIs it serves. A "
        "root cause is the rule broken and the difference; *first* is the oldest release judged that has "
        "it, *fixed in* the first release after the last one that has it. A release whose run could not "
        "start is an error, never failures.",
        "",
        "| runtime | package | release | judged | passed | failed | errors | root causes |",
        "|---|---|---|---|---|---|---|---|",
    ]
    histories = {}
    for (runtime, package), group in sorted(series.items()):
        ordered, history = series_history(group)
        histories[runtime, package] = (ordered, history)
        for run in ordered:
            if run.problem:
                lines.append(
                    f"| {runtime} | `{package}` | {run.version} | error: {_cell(run.problem)} | | | | |"
                )
                continue
            counts = run.counts()
            judged = sum(counts.values())
            lines.append(
                f"| {runtime} | `{package}` | {run.version} | {judged} | {counts['passed']} | "
                f"{counts['failed']} | {counts['error']} | {len(run.causes())} |"
            )
    lines.append("")
    for (runtime, package), (ordered, history) in histories.items():
        apis = sorted({api for run in ordered for api in run.apis})
        lines += [f"### {runtime}: `{package}`" + (f" ({', '.join(apis)})" if apis else ""), ""]
        changed = [h for h in history if h.first != ordered[0].version or h.fixed is not None]
        steady = len(history) - len(changed)
        if not history:
            lines += ["No release judged has a root cause.", ""]
            continue
        lines.append(
            f"{steady} root cause(s) are in every release judged"
            + (", from the oldest to the newest." if not changed else "; those that came or went:")
        )
        lines.append("")
        if not changed:
            continue
        header = " | ".join(run.version for run in ordered)
        lines += [
            f"| root cause | first | fixed in | {header} |",
            "|---|---|---|" + "---|" * len(ordered),
        ]
        for item in changed:
            rules, signature = item.key
            cells = " | ".join("error" if count is None else str(count) for count in item.cases)
            lines.append(
                f"| {_cell(', '.join(rules) or 'no rule')}: `{_cell(signature)}` | {item.first} | "
                f"{item.fixed or 'not yet'} | {cells} |"
            )
        lines.append("")
    return lines
