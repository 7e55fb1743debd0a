"""The Python interpreter a runtime's environment is made from: the one wireconf runs on, unless the
runtime requires another (runtimes.yaml's ``requires-python``, e.g. agentflow's ``>=3.12``); then the
newest installed CPython that meets the requirement, among pyenv's versions and the ``python3.N`` on
PATH (as a machine of this kind has them: CPython 3.11 to 3.13 through pyenv). Nothing is downloaded:
with no such interpreter the environment cannot be made (``wireconf.envs.build.NoInterpreterError``),
and the runtime is not run (its tests skip, or fail under ``.ci/run``'s ``WIRECONF_REQUIRE_<RUNTIME>``)."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

_PLAIN_CPYTHON = re.compile(r"^3\.\d+(\.\d+)?$")
"""pyenv's version names of CPython releases (not pypy-…, miniconda…, nor 3.13t or 3.14-dev)."""
_VERSION = "import sys; print('.'.join(map(str, sys.version_info[:3])))"


@dataclass(frozen=True)
class Interpreter:
    path: str
    version: str  # "3.13.0"

    @property
    def minor(self) -> str:
        """``major.minor``: what an environment's cache key holds."""
        return ".".join(self.version.split(".")[:2])


def base_python() -> str:
    """The interpreter wireconf runs on, as its base (never a venv's own link chain)."""
    return str(getattr(sys, "_base_executable", "") or sys.executable)


def current() -> Interpreter:
    return Interpreter(base_python(), ".".join(map(str, sys.version_info[:3])))


def _candidates() -> list[tuple[str, str | None]]:
    """The interpreters installed here, each with its version when known without running it: pyenv's
    CPython versions (named by it), then ``python3.N`` on PATH (``None``: run it to know), but pyenv's
    shims, which run one of those versions."""
    found: list[tuple[str, str | None]] = []
    shims: Path | None = None
    pyenv = shutil.which("pyenv")
    if pyenv is not None:
        done = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False)
        versions = Path(done.stdout.strip()) / "versions"
        shims = Path(done.stdout.strip()) / "shims"
        if done.returncode == 0 and versions.is_dir():
            found += [
                (str(folder / "bin" / "python"), folder.name)
                for folder in sorted(versions.iterdir())
                if _PLAIN_CPYTHON.match(folder.name) and (folder / "bin" / "python").is_file()
            ]
    for minor in range(30, 9, -1):
        on_path = shutil.which(f"python3.{minor}")
        if on_path is not None and (shims is None or Path(on_path).parent != shims):
            found.append((on_path, None))
    return found


def _version_of(path: str) -> str | None:
    """The interpreter's ``X.Y.Z`` (``None`` when it does not run)."""
    try:
        done = subprocess.run(
            [path, "-I", "-c", _VERSION], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


@functools.cache
def interpreter(requires_python: str = "") -> Interpreter | None:
    """The interpreter an environment requiring ``requires_python`` is made from: this one when there is no
    requirement, else the newest installed that meets it (``None`` when none does)."""
    if not requires_python:
        return current()
    allowed = SpecifierSet(requires_python)
    best: tuple[Version, Interpreter] | None = None
    for path, known in [(current().path, current().version), *_candidates()]:
        version = known or _version_of(path)
        try:
            parsed = Version(version) if version else None
        except InvalidVersion:
            parsed = None
        if parsed is not None and parsed in allowed and (best is None or parsed > best[0]):
            best = (parsed, Interpreter(path, str(version)))
    return best[1] if best is not None else None
