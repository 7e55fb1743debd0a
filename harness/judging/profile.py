"""Profiles: which tiers of rules a run is judged on.

``full`` judges every rule. ``spec`` judges the spec's own text and pseudocode only: a failure whose
differences break only rules of Prompty's vectors or of the project's decisions is outside it (pytest
reports it as xfailed, and it does not fail the run), though it is still a deviation, shown apart in
every report. Whatever the profile, the figures of both are reported.
"""

from __future__ import annotations

from harness.corpus.rules import TIERS, Tier

PROFILES: dict[str, tuple[Tier, ...]] = {"spec": ("spec",), "full": TIERS}


def in_profile(tier: Tier | None, profile: str) -> bool:
    """Whether a failure of ``tier`` counts under ``profile`` (a failure of no known tier always does)."""
    return tier is None or tier in PROFILES[profile]
