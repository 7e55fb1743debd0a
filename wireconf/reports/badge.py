"""A report as a shields.io endpoint badge (``https://img.shields.io/endpoint?url=...``)."""

from __future__ import annotations

import json

from wireconf.reports.matrix import RuntimeSummary


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


def badge_message(rt: RuntimeSummary) -> str:
    """``spec 648/650 · interop 645/650 · all rules 640/650, 6 unsupported (corpus 1.0.0)``: judged cases
    that conform to the spec's text, those the provider would read as the spec's requests (interop),
    then those that pass every rule; unsupported ones are not judged, so the badge says
    how many there are, and which corpus the counts are of. The colour follows the full profile."""
    text = (
        f"spec {rt.spec_conform}/{rt.judged} · interop {rt.interop_pass}/{rt.judged} · "
        f"all rules {rt.counts['passed']}/{rt.judged}"
    )
    if rt.counts["unsupported"]:
        text += f", {rt.counts['unsupported']} unsupported"
    versions = sorted({r.corpus for r in rt.records if r.corpus})
    if len(versions) == 1:
        text += f" (corpus {versions[0]})"
    return text


def render_badge(rt: RuntimeSummary) -> str:
    """The badge of one runtime (shields.io endpoint JSON)."""
    data = {
        "schemaVersion": 1,
        "label": f"wireconf {rt.impl}",
        "message": badge_message(rt),
        "color": badge_color(rt),
    }
    return json.dumps(data, indent=2) + "\n"
