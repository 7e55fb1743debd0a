"""Record mode: when an e2e case may reach a real provider, and with which key.

``--record-mode`` has vcrpy's meanings, applied to each e2e case's cassette:

- ``none`` (the default): replay only; a missing cassette or an unmatched request fails the case.
- ``once``: record when the cassette does not exist yet, otherwise replay as ``none``.
- ``new_episodes``: replay what matches, record what does not, and append it.
- ``all``: record every request; the new interactions replace the recorded ones they match.

wireconf records only into cassettes it recorded itself (``provenance: recorded``) or new ones: an
imported or synthetic cassette is somebody's evidence, so it is always replayed read-only.

Keys come from the providers' usual variables and base URLs from the SDKs' own variables, exactly as
a user's runtime would read them. A case that would record without its provider's key is skipped with
the reason.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import pytest

MODES = ("none", "once", "new_episodes", "all")


@dataclass(frozen=True)
class ProviderEnv:
    """A provider's key variables (the first one set wins) and its SDK's base-URL variable."""

    folder: str  # cassettes/<folder>/
    key_variables: tuple[str, ...]
    base_url_variable: str
    distributions: tuple[str, ...]  # whose versions a recorded cassette names

    def key(self, environ: Mapping[str, str]) -> str | None:
        for name in self.key_variables:
            if environ.get(name, "").strip():
                return environ[name]
        return None


PROVIDER_ENV: dict[str, ProviderEnv] = {
    "openai": ProviderEnv("openai", ("OPENAI_API_KEY",), "OPENAI_BASE_URL", ("openai", "httpx2")),
    "anthropic": ProviderEnv(
        "anthropic", ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL", ("anthropic", "httpx2")
    ),
    "gemini": ProviderEnv(
        "google", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "GOOGLE_GEMINI_BASE_URL", ("google-genai", "httpx2")
    ),
}


@dataclass(frozen=True)
class RecordingPolicy:
    """The session's record mode and the environment keys are read from."""

    mode: str = "none"
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"record mode {self.mode!r} is not one of {', '.join(MODES)}")

    def effective_mode(self, exists: bool, writable: bool) -> str:
        """The mode for one cassette: read-only cassettes are always replayed."""
        if exists and not writable:
            return "none"
        if self.mode == "once" and exists:
            return "none"
        return self.mode

    def may_record(self, exists: bool, writable: bool) -> bool:
        return self.effective_mode(exists, writable) != "none"

    def skip_reason(self, provider: str, exists: bool, writable: bool) -> str | None:
        """Why a case that would record cannot (its provider's key is not set), or ``None``."""
        if not self.may_record(exists, writable):
            return None
        env = PROVIDER_ENV[provider]
        if env.key(self.environ) is not None:
            return None
        names = " or ".join(env.key_variables)
        why = "its cassette does not exist" if not exists else f"--record-mode={self.mode} records"
        return (
            f"record mode {self.mode}: {why} and {names} is not set, so this {provider} case is not recorded"
        )


POLICY_KEY = pytest.StashKey["RecordingPolicy"]()


def policy_of(config: pytest.Config) -> RecordingPolicy:
    """The session's policy (set by ``harness.pytest_plugin.record_mode``; replay-only when it is absent)."""
    return config.stash.get(POLICY_KEY, None) or RecordingPolicy()
