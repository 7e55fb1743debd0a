"""A report as one static HTML page: the matrix of runtimes by (kind, api), and every failing case.

Self-contained (inline CSS, a few lines of script, no network), so it can be published as a CI
artifact or on a static site. Each matrix cell links to its failing cases; each case opens to its
rules, location and diff. Opening ``report.html#<case anchor>`` opens that case.
"""

from __future__ import annotations

import re
from collections import Counter
from html import escape

from harness.reports.jsonl import CaseRecord
from harness.reports.matrix import COLUMNS, Matrix, RuntimeSummary, baseline_mark

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 4px} h2{font-size:18px;margin:28px 0 8px} h3{font-size:15px;margin:18px 0 6px}
.muted{color:#57606a} table{border-collapse:collapse;margin:8px 0}
th,td{border:1px solid #d0d7de;padding:6px 10px;text-align:left;vertical-align:top}
th{background:#f6f8fa} td.cell{min-width:170px}
.bar{display:flex;height:8px;width:150px;border-radius:4px;overflow:hidden;background:#eaeef2;margin-top:4px}
.bar span{display:block;height:100%} .passed{background:#2da44e} .failed{background:#cf222e}
.error{background:#9a6700} .unsupported{background:#d0d7de} .skipped{background:#8c959f}
.counts b{font-weight:600} .n-passed{color:#1a7f37} .n-failed{color:#cf222e} .n-error{color:#9a6700}
.n-unsupported{color:#57606a} .n-skipped{color:#57606a} .cards{display:flex;gap:16px;flex-wrap:wrap}
.card{border:1px solid #d0d7de;border-radius:6px;padding:10px 14px;min-width:220px}
.card .rate{font-size:24px;font-weight:600}
details.case{border:1px solid #d0d7de;border-radius:6px;margin:6px 0;padding:6px 10px}
details.case[open]{background:#f6f8fa} details.case summary{cursor:pointer}
.tag{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;margin-left:6px}
.tag.known{background:#eaeef2} .tag.fail{background:#ffebe9;color:#cf222e} .tag.allowed{background:#fff8c5}
.tag.error{background:#fff8c5} pre{background:#fff;border:1px solid #d0d7de;padding:8px;overflow:auto;
white-space:pre-wrap;font:12px/1.4 ui-monospace,monospace} :target{outline:2px solid #0969da}
"""

SCRIPT = """
function openTarget(){var id=decodeURIComponent(location.hash.slice(1));if(!id)return;
var el=document.getElementById(id);if(!el)return;
if(el.tagName==='DETAILS'){el.open=true;}
el.querySelectorAll('details.case').forEach(function(d){d.open=true;});}
window.addEventListener('hashchange',openTarget);document.addEventListener('DOMContentLoaded',openTarget);
"""


def anchor(*parts: str) -> str:
    return "-".join(re.sub(r"[^A-Za-z0-9_.-]+", "_", p) for p in parts)


def _counts(counts: Counter[str]) -> str:
    if not counts:
        return '<span class="muted">-</span>'
    total = sum(counts[c] for c in COLUMNS) or 1
    spans = "".join(
        f'<span class="{c}" style="width:{100 * counts[c] / total:.1f}%"></span>'
        for c in COLUMNS
        if counts[c]
    )
    text = " · ".join(
        f'<b class="n-{c}" data-{c}="{counts[c]}">{counts[c]}</b> {c}' for c in COLUMNS if counts[c]
    )
    known = f' <span class="muted">({counts["known"]} known)</span>' if counts["known"] else ""
    return f'<div class="counts">{text}{known}</div><div class="bar">{spans}</div>'


def _card(rt: RuntimeSummary) -> str:
    c = rt.counts
    return (
        f'<div class="card" data-runtime="{escape(rt.label)}"><div>{escape(rt.label)}</div>'
        f'<div class="rate">{rt.pass_rate:.0%}</div><div class="muted">of {rt.judged} judged cases pass</div>'
        f'{_counts(c)}<div class="muted corpus">corpus {escape(rt.corpus)}</div></div>'
    )


def _case(rt: RuntimeSummary, record: CaseRecord) -> str:
    tags = ""
    if record.status == "error":
        tags += '<span class="tag error">error</span>'
    mark = baseline_mark(record)
    if mark is not None:
        style = "known" if record.baseline == "expected" else "allowed" if record.gate_accepted else "fail"
        tags += (
            f'<span class="tag {style}" data-baseline="{escape(record.baseline or "")}">{escape(mark)}</span>'
        )
    rules = "".join(f"<li><code>{escape(r)}</code></li>" for r in record.rules)
    where = f"<p><code>{escape(record.location)}</code></p>" if record.location else ""
    reason = f"<p>baseline: {escape(record.reason)}</p>" if record.baseline and record.reason else ""
    detail = record.diff or record.message or "(no details)"
    full = (
        f"<details><summary>full report</summary><pre>{escape(record.message)}</pre></details>"
        if record.message and record.diff
        else ""
    )
    return (
        f'<details class="case" id="{anchor("case", rt.label, record.id)}" data-status="{record.status}">'
        f"<summary><code>{escape(record.id)}</code>{tags}</summary>{where}{reason}"
        f'<p>rules:</p><ul>{rules}</ul><pre class="diff">{escape(detail)}</pre>{full}</details>'
    )


def render_html(matrix: Matrix, title: str = "wireconf conformance report") -> str:
    head = "".join(f"<th>{escape(rt.label)}</th>" for rt in matrix.runtimes)
    rows = []
    for kind, api in matrix.sections:
        cells = []
        for rt in matrix.runtimes:
            counts = matrix.cell(rt, (kind, api))
            body = _counts(counts)
            if matrix.failures_in(rt, (kind, api)):
                body += f'<a href="#{anchor("fail", rt.label, kind, api)}">failing cases</a>'
            cells.append(f'<td class="cell" data-runtime="{escape(rt.label)}">{body}</td>')
        rows.append(
            f'<tr data-kind="{escape(kind)}" data-api="{escape(api)}"><th>{escape(kind)}</th>'
            f"<th>{escape(api)}</th>{''.join(cells)}</tr>"
        )
    failures = []
    for rt in matrix.runtimes:
        if rt.fixed:
            items = "".join(f"<li><code>{escape(r.id)}</code></li>" for r in rt.fixed)
            failures.append(
                f"<h2>{escape(rt.label)}: {len(rt.fixed)} case(s) listed in the baseline as failing "
                "now pass</h2>"
                f'<ul class="fixed">{items}</ul>'
            )
        if not rt.failures:
            continue
        failures.append(f"<h2>{escape(rt.label)}: {len(rt.failures)} failing case(s)</h2>")
        for section in matrix.sections:
            cases = matrix.failures_in(rt, section)
            if cases:
                failures.append(
                    f'<section id="{anchor("fail", rt.label, *section)}"><h3>{escape(section[0])} '
                    f"{escape(section[1])} ({len(cases)})</h3>"
                    f"{''.join(_case(rt, r) for r in cases)}</section>"
                )
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f"<style>{CSS}</style><script>{SCRIPT}</script></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<p class="muted">{len(matrix.runtimes)} runtime(s), '
        f"{len(matrix.sections)} (kind, api) section(s); corpus "
        f'<span id="corpus">{escape(", ".join(matrix.corpora) or "unknown")}</span></p>'
        f'<div class="cards">{"".join(_card(rt) for rt in matrix.runtimes)}</div>'
        f'<h2>Matrix</h2><table id="matrix"><thead><tr><th>kind</th><th>api</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{''.join(failures)}</body></html>\n"
    )
