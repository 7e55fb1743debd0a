"""Prompty's TypeScript runtime for the tests: the build of the shared tarball (microsoft/prompty at
75e4d0e5, ``runtime/typescript``) that ``wireconf prompty-ts build`` made in the checkout's ``.cache/``
(``.ci/run`` makes it when it installs; a test never does).

Where Node.js, npm, the tarball or its build is missing the tests that need the runtime skip, unless
``WIRECONF_REQUIRE_PROMPTY_TS=1`` (``.ci/run`` sets it once it has built the runtime): then a missing
runtime fails them, so CI can never pass without running it.
"""

from __future__ import annotations

import os
import shutil
from functools import cache
from pathlib import Path

import pytest

from tests.conftest import REPO

REQUIRE_ENV = "WIRECONF_REQUIRE_PROMPTY_TS"
SHARED_ENV = "WIRECONF_SHARED"
TARBALL = Path("third-party") / "prompty-75e4d0e5" / "typescript-runtime.tar.gz"


def shared_tarball() -> Path | None:
    """The tarball under ``$WIRECONF_SHARED``, else under a ``shared/`` folder beside the checkout or
    beside its parent (a worktree's)."""
    configured = os.environ.get(SHARED_ENV)
    folders = [Path(configured)] if configured else [REPO.parent / "shared", REPO.parent.parent / "shared"]
    return next((folder / TARBALL for folder in folders if (folder / TARBALL).is_file()), None)


@cache
def _build() -> tuple[Path | None, str]:
    """The build made by the install step; a test never runs npm install (it downloads from the npm
    registry), so without a build the tests that need one skip, saying how to make it."""
    from wireconf.adapters.prompty_ts.build import BuildError, build, existing_build

    tarball = shared_tarball()
    if tarball is None:
        return None, f"the Prompty TypeScript tarball ({TARBALL}) is not in a shared/ folder here"
    if shutil.which("node") is None or shutil.which("npm") is None:
        return None, "node and npm (Node.js) are needed to build and run Prompty's TypeScript runtime"
    if existing_build(tarball) is None:
        return None, (
            f"Prompty's TypeScript runtime is not built: `wireconf prompty-ts build {tarball}` builds it "
            "(npm packages from the registry; .ci/run does, when it installs)"
        )
    try:
        return build(tarball), ""
    except BuildError as exc:
        return None, f"building Prompty's TypeScript runtime failed: {exc}"


def built_runtime() -> Path:
    """The built ``runtime/typescript`` folder; skips (fails under WIRECONF_REQUIRE_PROMPTY_TS) without."""
    runtime, why = _build()
    if runtime is None:
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"{REQUIRE_ENV} is set, but {why}")
        pytest.skip(why)
    return runtime
