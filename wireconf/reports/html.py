"""A report as one static HTML page: the matrix of runtimes by (kind, api), the failures by rule and
by root cause, and every failing case.

Self-contained (inline CSS, a few lines of script, no network), so it can be published as a CI
artifact or on a static site. Each runtime's card gives its spec-, interop- and full-profile figures.
Matrix rows no runtime supports are collapsed under the table. Each matrix cell links to its failing
cases; each case opens to the rules its diff breaks, location and diff. The by-rule view lists every
rule broken (with its tier) and the failing cases under it; the by-root-cause view groups failures that
share the rule broken and the difference. Opening ``report.html#<anchor>`` opens that element.
"""

from __future__ import annotations

import re
from collections import Counter
from html import escape

from wireconf.corpus.rules import Catalogue
from wireconf.reports.causes import NO_RULE, UNRULED_NOTE, group_causes
from wireconf.reports.jsonl import CaseRecord
from wireconf.reports.matrix import COLUMNS, Matrix, RuntimeSummary, baseline_mark

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
.tier{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px}
.tier.spec{background:#ffebe9;color:#cf222e} .tier.vectors{background:#fff8c5;color:#9a6700}
.tier.project{background:#ddf4ff;color:#0969da}
.tier.unruled{background:#eaeef2;color:#57606a} details.view>summary{cursor:pointer;font-weight:600}
td.num{text-align:right}
"""

SCRIPT = """
function openTarget(){var id=decodeURIComponent(location.hash.slice(1));if(!id)return;
var el=document.getElementById(id);if(!el)return;
if(el.tagName==='DETAILS'){el.open=true;}
el.querySelectorAll('details.case').forEach(function(d){d.open=true;});
el.scrollIntoView();}
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
        f'<div class="rate" data-profile="spec">{rt.spec_rate:.0%}</div>'
        f'<div class="muted">of {rt.judged} judged cases conform to the spec\'s text (spec profile)</div>'
        f'<div class="rate" data-profile="interop">{rt.interop_rate:.0%}</div>'
        f'<div class="muted">are what the provider would read as the spec\'s requests (interop profile)</div>'
        f'<div class="rate" data-profile="full">{rt.pass_rate:.0%}</div>'
        f'<div class="muted">pass every rule (full profile); failures: {escape(rt.tiers_text())}</div>'
        f'{_counts(c)}<div class="muted corpus">corpus {escape(rt.corpus)}</div></div>'
    )


def _judged(counts: Counter[str]) -> int:
    return counts["passed"] + counts["failed"] + counts["error"]


def _idle(sections: list[str]) -> str:
    """The (kind, api) rows no runtime supports, collapsed into one line."""
    if not sections:
        return ""
    return (
        f'<details id="unsupported" class="view"><summary>{len(sections)} (kind, api) section(s) '
        f"that no runtime here supports (not judged)</summary><p>{', '.join(sections)}</p></details>"
    )


def _tier(tier: str | None) -> str:
    return f'<span class="tier {escape(tier or "")}">{escape(tier or "?")}</span>'


def _case_links(rt: RuntimeSummary, case_ids: list[str]) -> str:
    return ", ".join(
        f'<a href="#{anchor("case", rt.label, c)}"><code>{escape(c)}</code></a>' for c in case_ids
    )


def _by_rule(matrix: Matrix, catalogue: Catalogue | None) -> str:
    """Every rule broken, with its tier and statement, the number of failing cases per runtime, and
    (opened) the cases."""
    cases: dict[str, dict[str, list[str]]] = {}
    tiers: dict[str, str | None] = {}
    for rt in matrix.runtimes:
        for record in rt.failures:
            if record.status != "failed":
                continue
            for item in record.differences or []:  # the rules broken, never the ones the case cites
                for rule_id in item.get("rules") or [NO_RULE]:
                    ids = cases.setdefault(rule_id, {}).setdefault(rt.label, [])
                    if record.id not in ids:
                        ids.append(record.id)
                    tier = (
                        "unruled"
                        if rule_id == NO_RULE
                        else _rule_tier(rule_id, catalogue) or item.get("tier")
                    )
                    tiers.setdefault(rule_id, tier)
    if not cases:
        return ""
    head = "".join(f"<th>{escape(rt.label)}</th>" for rt in matrix.runtimes)
    rows = []
    order = sorted(
        cases, key=lambda r: (_TIER_RANK.get(tiers[r] or "", 3), -sum(map(len, cases[r].values())), r)
    )
    for rule_id in order:
        rule = catalogue.rules.get(rule_id) if catalogue else None
        text = f" [{escape(rule.level)}]: {escape(rule.statement)}" if rule else ""
        if rule_id == NO_RULE:
            text = f" ({escape(UNRULED_NOTE)})"
        cells = []
        for rt in matrix.runtimes:
            ids = cases[rule_id].get(rt.label, [])
            detail = f"<details><summary>{len(ids)}</summary>{_case_links(rt, ids)}</details>" if ids else "-"
            cells.append(f'<td class="num" data-runtime="{escape(rt.label)}">{detail}</td>')
        rows.append(
            f'<tr id="{anchor("rule", rule_id)}" data-rule="{escape(rule_id)}">'
            f"<td><code>{escape(rule_id)}</code>{text}</td><td>{_tier(tiers[rule_id])}</td>{''.join(cells)}</tr>"
        )
    return (
        '<h2 id="by-rule">Failures by rule</h2><p class="muted">Each rule a failing case\'s diff breaks, '
        "most authoritative tier first (spec: the spec's text; vectors: Prompty's vectors; project: a "
        "project decision), with the number of failing cases per runtime (open it for the cases); "
        f"differences no rule declares last, as <em>{NO_RULE}</em> (unruled, no tier).</p>"
        f'<table id="rules"><thead><tr><th>rule</th><th>tier</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


_TIER_RANK = {"spec": 0, "vectors": 1, "project": 2}


def _rule_tier(rule_id: str, catalogue: Catalogue | None) -> str | None:
    rule = catalogue.rules.get(rule_id) if catalogue else None
    return rule.tier if rule else None


def _by_cause(matrix: Matrix) -> str:
    """Per runtime, failures grouped by the rule broken and the difference, most cases first."""
    out = []
    for rt in matrix.runtimes:
        causes = group_causes((r.id, r.differences or []) for r in rt.failures if r.status == "failed")
        if not causes:
            continue
        rows = "".join(
            f'<tr data-cause="{index}"><td class="num">{len(c.cases)}</td>'
            f"<td>{', '.join(f'<code>{escape(r)}</code>' for r in c.rules) or escape(NO_RULE)}</td>"
            f"<td>{_tier(c.tier_text)}</td>"
            f"<td><code>{escape(c.example)}</code><details><summary>cases</summary>"
            f"{_case_links(rt, c.cases)}</details></td></tr>"
            for index, c in enumerate(causes)
        )
        out.append(
            f'<h3 id="{anchor("causes", rt.label)}">{escape(rt.label)}: {len(causes)} root cause(s)</h3>'
            f'<table class="causes" data-runtime="{escape(rt.label)}"><thead><tr><th>cases</th>'
            f"<th>rules broken</th><th>tier</th><th>difference</th></tr></thead><tbody>{rows}</tbody></table>"
        )
    if not out:
        return ""
    intro = (
        '<h2 id="by-cause">Failures by root cause</h2><p class="muted">Failures that share the rule '
        "broken and the difference (its place, array indices aside, and its kind): fix one, and every "
        "case it counts passes.</p>"
    )
    return intro + "".join(out)


def _case(rt: RuntimeSummary, record: CaseRecord) -> str:
    tags = ""
    if record.status == "error":
        tags += '<span class="tag error">error</span>'
    mark = baseline_mark(record)
    if record.outside_profile:
        tags += f'<span class="tag known">outside the {escape(record.outside_profile)} profile</span>'
    elif mark is not None:
        style = "known" if record.baseline == "expected" else "allowed" if record.gate_accepted else "fail"
        tags += (
            f'<span class="tag {style}" data-baseline="{escape(record.baseline or "")}">{escape(mark)}</span>'
        )
    broken = record.broken
    rules = "".join(f"<li><code>{escape(r)}</code></li>" for r in broken)
    unruled = [d for d in record.differences or [] if not d.get("rules")]
    if unruled:
        paths = ", ".join(dict.fromkeys(f"{d.get('path', '$')} {d.get('change', '')}" for d in unruled))
        rules += f"<li>{NO_RULE}: <code>{escape(paths)}</code> ({escape(UNRULED_NOTE)})</li>"
    others = [r for r in record.rules if r not in broken]
    if others:
        rules += f'<li class="muted">also checks: {", ".join(escape(r) for r in others)}</li>'
    tags += _tier(record.tier or ("unruled" if unruled else None)) if record.status == "failed" else ""
    where = f"<p><code>{escape(record.location)}</code></p>" if record.location else ""
    reason = f"<p>baseline: {escape(record.reason)}</p>" if record.baseline and record.reason else ""
    if record.expected_rejected:
        said = "; ".join(f"<code>{escape(t)}</code>" for t in record.expected_rejected)
        reason += (
            '<p class="rejected">the provider\'s contract rejects the request this case expects (a finding '
            f"about the spec): {said}</p>"
        )
    detail = record.diff or record.message or "(no details)"
    full = (
        f"<details><summary>full report</summary><pre>{escape(record.message)}</pre></details>"
        if record.message and record.diff
        else ""
    )
    return (
        f'<details class="case" id="{anchor("case", rt.label, record.id)}" data-status="{record.status}">'
        f"<summary><code>{escape(record.id)}</code>{tags}</summary>{where}{reason}"
        f"<p>rules its diff breaks:</p><ul>{rules}</ul>"
        f'<pre class="diff">{escape(detail)}</pre>{full}</details>'
    )


def render_html(
    matrix: Matrix, title: str = "wireconf conformance report", catalogue: Catalogue | None = None
) -> str:
    head = "".join(f"<th>{escape(rt.label)}</th>" for rt in matrix.runtimes)
    rows, idle = [], []
    for kind, api in matrix.sections:
        if not any(_judged(matrix.cell(rt, (kind, api))) for rt in matrix.runtimes):
            idle.append(f"<code>{escape(kind)}:{escape(api)}</code>")
            continue
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
        f'<p class="muted" id="judged-by">{escape(matrix.judged_by_text())}</p>'
        f'<div class="cards">{"".join(_card(rt) for rt in matrix.runtimes)}</div>'
        f'<h2>Matrix</h2><table id="matrix"><thead><tr><th>kind</th><th>api</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{_idle(idle)}"
        f"{_by_rule(matrix, catalogue)}{_by_cause(matrix)}{''.join(failures)}</body></html>\n"
    )
