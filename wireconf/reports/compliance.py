"""The compliance page: one static HTML page beside docs/findings.md (``wireconf findings``), like
Bowtie's report for JSON Schema: the real runtimes side by side on the same corpus.

It shows the versions judged and the corpus version, the runtimes by (kind, api) matrix with each
runtime's spec-profile and full-profile figures, each runtime's failures filed by the rule they break
(the same filing as the Markdown page, ``wireconf.reports.findings.filed_under``) with the baseline's
explanation and the diff, and a per-rule view: which runtimes break rule X, with how many cases and
which difference, and the rules most runtimes break as questions for the spec's authors
(``wireconf.reports.findings_rules``).

Rendered with jinja2 and autoescape on: every string a runtime supplies (its name, its version, the
values in its diffs, a baseline's reason) is escaped; only the page's own CSS
is marked safe. Self-contained (the HTML report's CSS, no script,
no network), so it can be published as it is.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import jinja2

from wireconf.core.report_text import machine_paths_removed
from wireconf.corpus.rules import Catalogue, Rule
from wireconf.reports.findings import MAX_DIFF_LINES, filed_under
from wireconf.reports.findings_rules import Reading, is_question, readings
from wireconf.reports.html import CSS, anchor
from wireconf.reports.jsonl import CaseRecord
from wireconf.reports.matrix import COLUMNS, build_matrix

TEMPLATE = "templates/compliance.html.j2"
"""The page's template (package data beside this module)."""

_ENV = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)


def _template() -> jinja2.Template:
    source = resources.files("wireconf.reports").joinpath(TEMPLATE).read_text(encoding="utf-8")
    return _ENV.from_string(source)


@dataclass
class RuleView:
    id: str
    tier: str
    statement: str
    anchor: str
    runtimes: list[tuple[str, int, str, str]] = field(default_factory=list)
    """Each runtime that breaks it: its name, how many cases, the anchor of its section, its most
    frequent difference under the rule."""


def _diff(record: CaseRecord) -> str:
    lines = (record.diff or record.message or "(no details)").rstrip().splitlines()
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... {len(lines) - MAX_DIFF_LINES} more line(s)"]
    return "\n".join(lines)


def _tier(rule_id: str, catalogue: Catalogue) -> str:
    rule: Rule | None = catalogue.rules.get(rule_id)
    return "unknown" if rule is None else str(rule.tier)


def render_compliance(
    records: list[CaseRecord],
    catalogue: Catalogue,
    not_run: list[Any],
    command: str,
    corpus_size: int,
    corpus_version: str | None,
) -> str:
    """The page for ``records`` (every listed runtime's cases, as ``wireconf findings`` gathered them)."""
    matrix = build_matrix(records)
    runtimes: list[dict[str, Any]] = []
    rules: dict[str, RuleView] = {}
    impls = Counter(rt.impl for rt in matrix.runtimes)
    by_rule = readings(records)
    for rt in matrix.runtimes:
        name = rt.impl if impls[rt.impl] == 1 else rt.label  # luthien at two commits: name both

        grouped: dict[str, list[CaseRecord]] = defaultdict(list)
        for record in rt.failures:
            grouped[filed_under(record)[0]].append(record)
        groups = []
        for rule_id, cases in sorted(grouped.items()):
            target = anchor("rt", rt.label, rule_id)
            groups.append(
                {
                    "rule": rule_id,
                    "tier": _tier(rule_id, catalogue),
                    "anchor": target,
                    "cases": [
                        {"id": r.id, "why": filed_under(r)[1], "diff": _diff(r)}
                        for r in sorted(cases, key=lambda r: r.id)
                    ],
                }
            )
            rule: Rule | None = catalogue.rules.get(rule_id)
            view = rules.setdefault(
                rule_id,
                RuleView(
                    rule_id,
                    _tier(rule_id, catalogue),
                    "" if rule is None else str(rule.statement),
                    anchor("rule", rule_id),
                ),
            )
            reading = by_rule.get(rule_id, {}).get(rt.label)
            example = reading.example if reading is not None and reading.differences else ""
            view.runtimes.append((name, len(cases), target, example))
        runtimes.append(
            {
                "impl": name,
                "version": rt.version,
                "anchor": anchor("rt", rt.label),
                "judged": rt.judged,
                "spec": rt.spec_conform,
                "interop": rt.interop_pass,
                "passed": rt.counts["passed"],
                "counts": rt.counts,
                "failures": rt.failures,
                "groups": groups,
            }
        )
    rows = []
    for section in matrix.sections:
        cells = []
        for rt in matrix.runtimes:
            counts = matrix.cell(rt, section)
            judged = counts["passed"] + counts["failed"] + counts["error"]
            cells.append(
                {
                    "judged": judged,
                    "passed": counts["passed"],
                    "failed": counts["failed"] + counts["error"],
                    "unsupported": counts["unsupported"],
                }
            )
        if any(c["judged"] for c in cells):
            rows.append({"kind": section[0], "api": section[1], "cells": cells})
    page = _template().render(
        title="wireconf compliance: real runtimes against one corpus",
        css=CSS,
        corpus_version=corpus_version or "unknown",
        corpus_size=corpus_size,
        command=command,
        columns=COLUMNS,
        runtimes=runtimes,
        not_run=not_run,
        rows=rows,
        rules=sorted(rules.values(), key=lambda v: (-len(v.runtimes), v.id)),
        questions=_questions(
            by_rule,
            catalogue,
            {rt.label: rt.impl if impls[rt.impl] == 1 else rt.label for rt in matrix.runtimes},
        ),
    )
    return machine_paths_removed(page)  # the machines' folders out, as on the findings page


def _questions(
    by_rule: dict[str, dict[str, Reading]], catalogue: Catalogue, names: dict[str, str]
) -> list[dict[str, Any]]:
    """The rules most runtimes break (``is_question``), most runtimes first: the spec's sentence, the
    project's reading and each runtime's."""
    out = []
    for rule_id, by in by_rule.items():
        if not is_question(by):
            continue
        rule: Rule | None = catalogue.rules.get(rule_id)
        readings_of = [
            {
                "name": names.get(label, label),
                "broken": len(reading.broken),
                "judged": len(reading.judged),
                "example": reading.example,
                "why": reading.explanations.most_common(1)[0][0] if reading.explanations else None,
            }
            for label, reading in sorted(by.items())
            if reading.broken
        ]
        out.append(
            {
                "id": rule_id,
                "anchor": anchor("question", rule_id),
                "judged": len(by),
                "section": "" if rule is None else str(rule.source.section),
                "quote": None if rule is None or not rule.quote else rule.quote.strip(),
                "statement": "" if rule is None else str(rule.statement),
                "tier": _tier(rule_id, catalogue),
                "decision": None if rule is None or rule.tier == "spec" else rule.decision,
                "readings": readings_of,
            }
        )
    return sorted(out, key=lambda q: (-len(q["readings"]), q["id"]))
