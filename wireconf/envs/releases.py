"""The last releases of a package, as its registry's own client lists them: ``pip index versions`` for
PyPI, ``npm view <package> versions --json`` for npm. Pre-releases are left out, and a series' ``within``
specifier (``<4``: the major line an adapter is written for) is applied. Each answer is kept in the cache
folder, and used when the registry cannot be reached (offline with a warm cache)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from wireconf.cassettes.atomic import write_atomic
from wireconf.core.cache_dir import cache_root
from wireconf.core.errors import WireconfError
from wireconf.envs.spec import NPM, EnvSpecError, Series

_AVAILABLE = re.compile(r"^Available versions:\s*(.+)$", re.M)


class ReleasesError(WireconfError):
    """A package's releases could not be listed (the registry is unreachable and nothing is cached)."""


def _listed(package: str, ecosystem: str) -> list[str]:
    """Every version the registry lists, in its own order (or ``ReleasesError``)."""
    if ecosystem == NPM:
        npm = shutil.which("npm")
        if npm is None:
            raise ReleasesError("npm is not on PATH: cannot list the releases of " + package)
        done = subprocess.run(
            [npm, "view", package, "versions", "--json"], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise ReleasesError(f"npm view {package} versions failed: {done.stderr.strip()[-300:]}")
        listed = json.loads(done.stdout or "[]")
        return [listed] if isinstance(listed, str) else [str(v) for v in listed]
    done = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", package],
        capture_output=True,
        text=True,
        check=False,
    )
    found = _AVAILABLE.search(done.stdout)
    if done.returncode != 0 or not found:
        raise ReleasesError(f"pip index versions {package} failed: {done.stderr.strip()[-300:]}")
    return [v.strip() for v in found.group(1).split(",") if v.strip()]


def newest(versions: list[str], count: int, within: str = "") -> list[str]:
    """The ``count`` newest final releases of ``versions`` that ``within`` allows, oldest first."""
    try:
        allowed = SpecifierSet(within)
    except InvalidSpecifier as error:
        raise EnvSpecError(f"releases: within {within!r} is not a version specifier: {error}") from error
    parsed = []
    for text in versions:
        try:
            version = Version(text)
        except InvalidVersion:
            continue
        if not version.is_prerelease and not version.is_devrelease and version in allowed:
            parsed.append((version, text))
    return [text for _, text in sorted(parsed)[-count:]] if count > 0 else []


def last_releases(series: Series, ecosystem: str, count: int, cache: Path | None = None) -> list[str]:
    """The ``count`` newest releases of ``series.package`` (oldest first), from the registry, else from
    the answer kept in the cache; ``ReleasesError`` when there is neither."""
    kept = (cache or cache_root()) / "envs" / "releases.json"
    known: dict[str, list[str]] = json.loads(kept.read_text(encoding="utf-8")) if kept.is_file() else {}
    key = f"{ecosystem}:{series.package}"
    try:
        versions = _listed(series.package, ecosystem)
    except ReleasesError:
        if key not in known:
            raise
        versions = known[key]
    else:
        if known.get(key) != versions:
            known[key] = versions
            write_atomic(kept, json.dumps(known, indent=1, sort_keys=True) + "\n")
    return newest(versions, count, series.within)
