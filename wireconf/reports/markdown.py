"""A report as Markdown, for a CI step summary (``$GITHUB_STEP_SUMMARY``) or a pull-request comment."""

from __future__ import annotations

import html
import re
from collections import Counter

from wireconf.core.report_text import bounded, encodable
from wireconf.reports.causes import NO_RULE, group_causes
from wireconf.reports.matrix import COLUMNS, Matrix, baseline_mark

MAX_DIFF_LINES = 40
MAX_CAUSES = 15
MAX_LINE = 1000
"""Characters of one line of a runtime's text shown (a diff line is far shorter)."""

_BACKTICKS = re.compile("`+")
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]|~]")
"""What would start emphasis, a link, code, a table cell or strike-through inside a line."""


def text(value: object) -> str:
    """A string a runtime supplies (its name, version, a baseline's reason) as Markdown text: one line,
    bounded, HTML and Markdown escaped (a ``<script>`` name shows as written, a ``|`` cannot split a
    table cell)."""
    return _plain(str(value))


def _cell(counts: Counter[str]) -> str:
    if not counts:
        return "-"
    text = " / ".join(str(counts[c]) for c in COLUMNS)
    return text + (f" ({counts['known']} known)" if counts["known"] else "")


def _fence(text: str) -> str:
    """A code block of a runtime's text: its lines and each line bounded, fenced by more backticks than
    any run of them in it (so that nothing in it closes the block)."""
    lines = [bounded(line, MAX_LINE) for line in encodable(text).split("\n")]
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES} more line(s)"]
    body = "\n".join(lines)
    fence = "`" * max(3, _longest_backticks(body) + 1)
    return f"{fence}\n{body}\n{fence}"


def _longest_backticks(text: str) -> int:
    return max((len(run) for run in _BACKTICKS.findall(text)), default=0)


def _code(text: str) -> str:
    """An inline code span of ``text`` (one line, bounded) that no backtick in it can end early."""
    text = bounded(encodable(" ".join(text.split("\n"))), MAX_LINE)
    ticks = "`" * (_longest_backticks(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _plain(text: str) -> str:
    """Text a runtime supplied (its name and version, a reason) shown as itself: one line, bounded, with
    Markdown's and HTML's special characters escaped."""
    text = bounded(encodable(" ".join(text.split("\n"))), MAX_LINE)
    return _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(), html.escape(text, quote=False))


def render_markdown(matrix: Matrix) -> str:
    out = ["## wireconf conformance", ""]
    corpora = matrix.corpora
    if len(corpora) == 1:
        out += [f"Corpus {corpora[0]}.", ""]
    elif corpora:
        out += [f"Corpora: {', '.join(corpora)} (the runtimes were not all judged against the same one).", ""]
    judged_by = matrix.judged_by_text()
    if judged_by:
        out += [_plain(judged_by), ""]
    for rt in matrix.runtimes:
        c = rt.counts
        known = f" ({rt.known} known from the baseline)" if rt.known else ""
        corpus = f" (corpus {rt.corpus})" if len(corpora) > 1 else ""
        out.append(
            f"- **{_plain(rt.label)}**{corpus}: {c['passed']} passed, {c['failed']} failed{known} "
            f"({rt.tiers_text()}), {c['error']} error, {c['unsupported']} unsupported, {c['skipped']} "
            f"skipped — {rt.profiles_text()}"
        )
    out += [
        "",
        "Spec profile: judged cases whose diff breaks no rule of the spec's text; interop profile: judged "
        "cases that pass once differences the provider reads alike are set aside as representation; "
        "full profile: judged cases that pass every rule. A failure's tier (spec, vectors, project) is that "
        "of the rules its diff breaks.",
        "",
        "Each cell: " + " / ".join(COLUMNS) + ".",
        "",
    ]
    out.append("| kind | api | " + " | ".join(_plain(rt.label) for rt in matrix.runtimes) + " |")
    out.append("|---|---|" + "---|" * len(matrix.runtimes))
    for section in matrix.sections:
        cells = " | ".join(_cell(matrix.cell(rt, section)) for rt in matrix.runtimes)
        out.append(f"| {_plain(section[0])} | {_plain(section[1])} | {cells} |")
    for rt in matrix.runtimes:
        causes = group_causes((r.id, r.differences or []) for r in rt.failures)
        if causes:
            head = f"### {_plain(rt.label)}: root causes"
            out += ["", head, "", "| cases | rules broken | tier | difference |"]
            out.append("|---:|---|---|---|")
            for cause in causes[:MAX_CAUSES]:
                rules = cause.rules_text(code=True)
                example = _code(cause.example).replace("|", "\\|")
                out.append(f"| {len(cause.cases)} | {rules} | {_plain(cause.tier_text)} | {example} |")
            if len(causes) > MAX_CAUSES:
                out.append(f"| … | {len(causes) - MAX_CAUSES} more root causes | | |")
    for rt in matrix.runtimes:
        if rt.fixed:
            ids = ", ".join(f"`{r.id}`" for r in rt.fixed)
            out += [
                "",
                f"**{_plain(rt.label)}**: {len(rt.fixed)} case(s) listed in the baseline as failing now pass "
                f"(remove them from it): {ids}",
            ]
        if not rt.failures:
            continue
        out += ["", f"### {_plain(rt.label)}: {len(rt.failures)} failing case(s)", ""]
        for record in rt.failures:
            mark = baseline_mark(record)
            shown = "" if mark is None else f" (**{mark}**)" if not record.gate_accepted else f" ({mark})"
            if record.outside_profile:
                shown = f" (outside the {record.outside_profile} profile)"
            rules = ", ".join(_code(r) for r in record.broken)
            if record.status == "failed":
                tier = f" [{_plain(record.tier or 'unruled')}]"
                says = f"breaks {rules}" if rules else NO_RULE
                head = f"<code>{html.escape(record.id)}</code> {record.status}{shown}{tier}: {says}"
                if rules and any(not d.get("rules") for d in record.differences or []):
                    head += f", and differs where {NO_RULE}"
            else:
                head = f"<code>{html.escape(record.id)}</code> {record.status}{shown}: not judged"
            out.append(f"<details><summary>{head}</summary>")
            out.append("")
            if record.location:
                reason = f" — baseline: {_plain(record.reason)}" if record.reason else ""
                out.append(_code(record.location) + reason)
                out.append("")
            if record.expected_rejected:
                out.append(
                    "The provider's contract rejects the request this case expects (a finding about the "
                    "spec): " + "; ".join(_code(t) for t in record.expected_rejected)
                )
                out.append("")
            out.append(_fence(record.diff or record.message or "(no details)"))
            out += ["", "</details>"]
    return "\n".join(out) + "\n"
