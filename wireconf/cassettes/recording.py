"""Record mode: when an e2e case may reach a real provider, and with which key.

``--record-mode`` has vcrpy's meanings, applied to each e2e case's cassette:

- ``none`` (the default): replay only; a missing cassette or an unmatched request fails the case.
- ``once``: record when the cassette does not exist yet, otherwise replay as ``none``.
- ``new_episodes``: replay what matches, record what does not, and append it.
- ``all``: record every request; the new interactions replace the recorded ones they match.

wireconf records only into cassettes it recorded itself (``provenance: recorded``) or new ones: an
imported or synthetic cassette is somebody's evidence, so it is always replayed read-only.

Keys come from the providers' usual variables and base URLs from the SDKs' own variables (each
provider's record, ``wireconf.providers``), exactly as a user's runtime would read them. A case that
would record without its provider's key is skipped with the reason.

A recording reaches one place only: the provider's own hosts (its record's ``hosts``, over HTTPS) or
the base URL the user set in its SDK's variable (``OPENAI_BASE_URL``, …). The SDK client a runtime is
handed carries the user's key, and a runtime can point it anywhere (``client.with_options(base_url=…)``);
the recording transport refuses any other origin (``allowed_origin``), as a network attempt.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from wireconf.core.errors import WireconfError
from wireconf.providers.registry import PROVIDERS

MODES = ("none", "once", "new_episodes", "all")


class RecordModeError(WireconfError, ValueError):
    """A record mode that is not one of ``MODES``."""


@dataclass(frozen=True)
class RecordingPolicy:
    """The session's record mode and the environment keys are read from."""

    mode: str = "none"
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise RecordModeError(f"record mode {self.mode!r} is not one of {', '.join(MODES)}")

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
        record = PROVIDERS[provider]
        if record.key(self.environ) is not None:
            return None
        names = " or ".join(record.key_variables)
        why = "its cassette does not exist" if not exists else f"--record-mode={self.mode} records"
        return (
            f"record mode {self.mode}: {why} and {names} is not set, so this {provider} case is not recorded"
        )


Origin = tuple[str, str, int]
"""``(scheme, host, port)``, lower case, the port spelled out."""

_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> Origin | None:
    """The origin of ``url``, or ``None`` when it has none (no scheme or host, a bad port)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    return scheme, host, port if port is not None else _DEFAULT_PORTS[scheme]


def allowed_origins(provider: str, environ: Mapping[str, str]) -> frozenset[Origin]:
    """Where a recording of ``provider``'s traffic may go: its public hosts over HTTPS, and the base
    URL the user set in the SDK's variable."""
    record = PROVIDERS[provider]
    origins = {("https", host.lower(), 443) for host in record.hosts}
    chosen = origin_of(environ.get(record.base_url_variable, ""))
    if chosen is not None:
        origins.add(chosen)
    return frozenset(origins)


def allowed_origin(url: str, provider: str, environ: Mapping[str, str]) -> bool:
    """Whether a request to ``url`` may leave for ``provider``'s recording."""
    found = origin_of(url)
    return found is not None and found in allowed_origins(provider, environ)
