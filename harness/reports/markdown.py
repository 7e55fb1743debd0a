"""A report as Markdown, for a CI step summary (``$GITHUB_STEP_SUMMARY``) or a pull-request comment."""

from __future__ import annotations

from collections import Counter
from html import escape

from harness.reports.causes import group_causes
from harness.reports.matrix import COLUMNS, Matrix, baseline_mark

MAX_DIFF_LINES = 40
MAX_CAUSES = 15


def text(value: object) -> str:
    """A string a runtime supplies (its name, version, a baseline's reason) as Markdown text: HTML
    escaped, since GitHub renders inline HTML (a ``<script>`` name must show as written, never run),
    and ``|`` escaped so that it cannot split a table cell."""
    return escape(str(value), quote=False).replace("|", "\\|")


def _cell(counts: Counter[str]) -> str:
    if not counts:
        return "-"
    text = " / ".join(str(counts[c]) for c in COLUMNS)
    return text + (f" ({counts['known']} known)" if counts["known"] else "")


def _fence(text: str) -> str:
    lines = text.splitlines()
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES} more line(s)"]
    body = "\n".join(lines).replace("```", "`\u200b``")
    return f"```\n{body}\n```"


def render_markdown(matrix: Matrix) -> str:
    out = ["## wireconf conformance", ""]
    corpora = matrix.corpora
    if len(corpora) == 1:
        out += [f"Corpus {corpora[0]}.", ""]
    elif corpora:
        out += [f"Corpora: {', '.join(corpora)} (the runtimes were not all judged against the same one).", ""]
    for rt in matrix.runtimes:
        c = rt.counts
        known = f" ({rt.known} known from the baseline)" if rt.known else ""
        corpus = f" (corpus {rt.corpus})" if len(corpora) > 1 else ""
        out.append(
            f"- **{text(rt.label)}**{corpus}: {c['passed']} passed, {c['failed']} failed{known} "
            f"({rt.tiers_text()}), {c['error']} error, {c['unsupported']} unsupported, {c['skipped']} "
            f"skipped — {rt.profiles_text()}"
        )
    out += [
        "",
        "Spec profile: judged cases whose diff breaks no rule of the spec's text; full profile: judged "
        "cases that pass every rule. A failure's tier (spec, vectors, project) is that of the rules its "
        "diff breaks.",
        "",
        "Each cell: " + " / ".join(COLUMNS) + ".",
        "",
    ]
    out.append("| kind | api | " + " | ".join(text(rt.label) for rt in matrix.runtimes) + " |")
    out.append("|---|---|" + "---|" * len(matrix.runtimes))
    for section in matrix.sections:
        cells = " | ".join(_cell(matrix.cell(rt, section)) for rt in matrix.runtimes)
        out.append(f"| {section[0]} | {section[1]} | {cells} |")
    for rt in matrix.runtimes:
        causes = group_causes((r.id, r.differences or []) for r in rt.failures)
        if causes:
            out += [
                "",
                f"### {text(rt.label)}: root causes",
                "",
                "| cases | rules broken | tier | difference |",
            ]
            out.append("|---:|---|---|---|")
            for cause in causes[:MAX_CAUSES]:
                rules = cause.rules_text(code=True)
                example = cause.example.replace("|", "\\|")
                out.append(f"| {len(cause.cases)} | {rules} | {cause.tier or '?'} | `{example}` |")
            if len(causes) > MAX_CAUSES:
                out.append(f"| … | {len(causes) - MAX_CAUSES} more root causes | | |")
    for rt in matrix.runtimes:
        if rt.fixed:
            ids = ", ".join(f"`{r.id}`" for r in rt.fixed)
            out += [
                "",
                f"**{text(rt.label)}**: {len(rt.fixed)} case(s) listed in the baseline as failing now pass "
                f"(remove them from it): {ids}",
            ]
        if not rt.failures:
            continue
        out += ["", f"### {text(rt.label)}: {len(rt.failures)} failing case(s)", ""]
        for record in rt.failures:
            mark = baseline_mark(record)
            shown = "" if mark is None else f" (**{mark}**)" if not record.gate_accepted else f" ({mark})"
            if record.outside_profile:
                shown = f" (outside the {record.outside_profile} profile)"
            rules = ", ".join(f"`{r}`" for r in record.broken)
            tier = f" [{record.tier}]" if record.tier else ""
            head = f"<code>{record.id}</code> {record.status}{shown}{tier}: breaks {rules}"
            out.append(f"<details><summary>{head}</summary>")
            out.append("")
            if record.location:
                out.append(
                    f"`{record.location}`" + (f" — baseline: {text(record.reason)}" if record.reason else "")
                )
                out.append("")
            out.append(_fence(record.diff or record.message or "(no details)"))
            out += ["", "</details>"]
    return "\n".join(out) + "\n"
