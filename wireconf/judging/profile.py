"""Profiles: which differences a run is judged on.

``full`` judges every rule. ``spec`` judges the spec's own text and pseudocode only: a failure whose
differences break only rules of Prompty's vectors or of the project's decisions is outside it (pytest
reports it as xfailed, and it does not fail the run), though it is still a deviation, shown apart in
every report. ``interop`` judges what the provider would do: every rule, but a difference the api's
provider treats as the same request (a default sent or omitted, one text block for a string, the same
JSON with other whitespace: ``wireconf.providers.equivalence``) is *representation*, shown and counted,
never failing. Whatever the profile, the figures of all three are reported.

A request the provider's pinned contract rejects, a stale waiver or an unruled difference fails in every
profile.
"""

from __future__ import annotations

from wireconf.corpus.rules import TIERS, Tier

PROFILES: dict[str, tuple[Tier, ...]] = {"spec": ("spec",), "interop": TIERS, "full": TIERS}
"""Each profile with the tiers of rules it judges."""

TOLERATES_REPRESENTATION: frozenset[str] = frozenset({"interop"})
"""The profiles under which a difference a provider equivalence covers does not fail."""


def in_profile(tier: Tier | None, profile: str) -> bool:
    """Whether a failure of ``tier`` counts under ``profile`` (a failure of no known tier always does)."""
    return tier is None or tier in PROFILES[profile]
