"""A report as a shields.io endpoint badge (``https://img.shields.io/endpoint?url=...``)."""

from __future__ import annotations

import json

from harness.reports.matrix import RuntimeSummary


def badge_color(rt: RuntimeSummary) -> str:
    if rt.judged and rt.counts["failed"] == 0 and rt.counts["error"] == 0:
        return "brightgreen"
    if rt.pass_rate >= 0.9:
        return "green"
    if rt.pass_rate >= 0.75:
        return "yellow"
    if rt.pass_rate >= 0.5:
        return "orange"
    return "red"


def render_badge(rt: RuntimeSummary) -> str:
    """The badge of one runtime: judged cases that conform to the spec's text, then those that pass
    every rule (unsupported cases are not judged); coloured by the full profile."""
    data = {
        "schemaVersion": 1,
        "label": f"wireconf {rt.impl}",
        "message": f"spec {rt.spec_conform}/{rt.judged} · all rules {rt.counts['passed']}/{rt.judged}",
        "color": badge_color(rt),
    }
    return json.dumps(data, indent=2) + "\n"
