"""The folder wireconf keeps what it can rebuild (builds, parsed corpora): ``WIRECONF_CACHE_DIR``, else
``.cache/`` at the root of a source checkout of wireconf (gitignored), else ``~/.cache/wireconf``."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "WIRECONF_CACHE_DIR"


def cache_root() -> Path:
    """The cache folder (outside any source tree wireconf reads)."""
    configured = os.environ.get(CACHE_ENV)
    if configured:
        return Path(configured)
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "wireconf").is_dir():
        return checkout / ".cache"
    return Path.home() / ".cache" / "wireconf"
