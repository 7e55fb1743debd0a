"""Make, or reuse, the environment an ``EnvSpec`` describes, under ``<cache>/envs/<name>-<key>/``.

Python: ``uv venv`` and ``uv pip install`` (with uv's own cache; ``python -m venv`` and pip when uv is
not installed) of the project's requirements and the runtime's pins, resolved together, then wireconf
itself editable from the checkout without its dependencies (so the environment runs the checkout's
adapters in-process, and ``python -m pytest`` in it loads the plugin). npm: ``npm install`` of the pins
into a folder with the exec client unpacked beside them, as ``wireconf ai-sdk build`` makes it.

A finished environment holds a mark file; one without it (a build that died) is made again. Builds of
one environment are serialised by a lock file, and the editable installs of the checkout (which write
its ``egg-info``) by another, so that ``--jobs`` builds run side by side safely.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from wireconf.core.cache_dir import cache_root
from wireconf.core.errors import WireconfError
from wireconf.envs.interpreters import Interpreter, base_python, interpreter
from wireconf.envs.spec import NPM, EnvSpec, package_name

MARK = ".wireconf-env"
EDITABLE_LOCK = ".editable.lock"
"""Held while the checkout is installed editable (it writes its egg-info)."""
CHECKOUT = Path(__file__).resolve().parents[2]
"""The source checkout the environments install wireconf from (editable)."""


class EnvBuildError(WireconfError):
    """An environment could not be made: the step that failed and the last lines of its log."""


class NoInterpreterError(EnvBuildError):
    """No installed interpreter meets the environment's ``requires_python`` (nothing was attempted)."""


@dataclass(frozen=True)
class Env:
    """A made environment: its folder, the interpreter to run pytest with (Python), or the folder to
    hand the Node.js runtime (npm), and whether it was reused from the cache."""

    spec: EnvSpec
    folder: Path
    reused: bool

    @property
    def python(self) -> Path:
        return self.folder / "bin" / "python"


def envs_root(cache: Path | None = None) -> Path:
    return (cache or cache_root()) / "envs"


def project_requirements(checkout: Path = CHECKOUT) -> list[str]:
    """wireconf's own requirements (``[project].dependencies`` of the checkout's pyproject.toml)."""
    with (checkout / "pyproject.toml").open("rb") as handle:
        return list(tomllib.load(handle)["project"]["dependencies"])


def _project_table(checkout: Path) -> str:
    """The checkout's ``[project]`` table as one text: its requirements, and its entry points (the
    adapters and the pytest plugin), which an editable install records when it is made."""
    with (checkout / "pyproject.toml").open("rb") as handle:
        return json.dumps(tomllib.load(handle)["project"], sort_keys=True)


def python_of(spec: EnvSpec) -> Interpreter:
    """The interpreter a Python environment is made from (``wireconf.envs.interpreters``), or
    ``NoInterpreterError``."""
    found = interpreter(spec.requires_python)
    if found is None:
        raise NoInterpreterError(
            f"{spec.name} needs Python {spec.requires_python} and none is installed here (this one, "
            "pyenv's versions and python3.N on PATH were looked at): install one, e.g. `pyenv install 3.13`"
        )
    return found


def folder_of(spec: EnvSpec, cache: Path | None = None, checkout: Path = CHECKOUT) -> Path:
    """Where ``spec``'s environment is kept: a Python one's key covers the interpreter it is made from,
    the checkout it installs editable and that checkout's ``[project]`` (a new adapter's entry point
    makes a new environment); ``NoInterpreterError`` when no interpreter meets its ``requires_python``."""
    if spec.ecosystem == NPM:
        return envs_root(cache) / f"{spec.folder_name}-{spec.key()}"
    extra = [_project_table(checkout), str(checkout)]
    python = python_of(spec).minor if spec.requires_python else ""
    return envs_root(cache) / f"{spec.folder_name}-{spec.key(*extra, python=python)}"


def is_made(folder: Path) -> bool:
    return (folder / MARK).is_file()


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def make(spec: EnvSpec, cache: Path | None = None, checkout: Path = CHECKOUT) -> Env:
    """The environment of ``spec``, made now or reused (``EnvBuildError`` when a step fails)."""
    folder = folder_of(spec, cache, checkout)
    if is_made(folder):
        return Env(spec, folder, reused=True)
    with _locked(folder.with_name(folder.name + ".lock")):
        if is_made(folder):  # another job made it while this one waited
            return Env(spec, folder, reused=True)
        if folder.exists():
            shutil.rmtree(folder)
        log = folder.with_name(folder.name + ".log")
        log.write_text(f"making {folder} for {spec.name}: {' '.join(spec.packages)}\n", encoding="utf-8")
        if spec.ecosystem == NPM:
            _make_npm(spec, folder, log)
        else:
            _make_python(spec, folder, log, checkout)
        (folder / MARK).write_text("\n".join(spec.packages) + "\n", encoding="utf-8")
    return Env(spec, folder, reused=False)


def _run(command: list[str], log: Path, cwd: Path | None = None) -> None:
    with log.open("a", encoding="utf-8") as out:
        out.write("$ " + " ".join(command) + "\n")
        out.flush()
        done = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, check=False, cwd=cwd)
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-12:]
        raise EnvBuildError(f"{command[0]} {command[1]} failed (log {log}):\n  " + "\n  ".join(tail))


def uv_path() -> str | None:
    """uv: on PATH, or beside this interpreter (the dev extra installs it into .venv/bin)."""
    beside = Path(sys.executable).parent / "uv"
    return shutil.which("uv") or (str(beside) if beside.is_file() else None)


def _make_python(spec: EnvSpec, folder: Path, log: Path, checkout: Path) -> None:
    requirements = [*project_requirements(checkout), *spec.packages]
    python = str(folder / "bin" / "python")
    base = python_of(spec).path if spec.requires_python else base_python()
    uv = uv_path()
    if uv is not None:
        _run([uv, "venv", "--quiet", "--python", base, str(folder)], log)
        _run([uv, "pip", "install", "--quiet", "--python", python, *requirements], log)
        with _locked(folder.parent / EDITABLE_LOCK):
            _run([uv, "pip", "install", "--quiet", "--python", python, "--no-deps", "-e", str(checkout)], log)
        return
    _run([base, "-m", "venv", str(folder)], log)
    _run([python, "-m", "pip", "install", "--quiet", *requirements], log)
    with _locked(folder.parent / EDITABLE_LOCK):
        _run([python, "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(checkout)], log)


def _make_npm(spec: EnvSpec, folder: Path, log: Path) -> None:
    from wireconf.adapters.ai_sdk.build import _unpack_client as unpack_client

    if shutil.which("npm") is None:
        raise EnvBuildError("npm is not on PATH (it comes with Node.js; Debian: apt-get install npm)")
    folder.mkdir(parents=True)
    dependencies = {package_name(pin): pin[len(package_name(pin)) + 1 :] or "*" for pin in spec.packages}
    manifest = {"name": f"wireconf-env-{spec.folder_name}", "private": True, "type": "module"}
    (folder / "package.json").write_text(
        json.dumps({**manifest, "dependencies": dependencies}, indent=2) + "\n", encoding="utf-8"
    )
    npm = shutil.which("npm") or "npm"
    _run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"], log, cwd=folder)
    unpack_client(folder / "node_modules")


def environment_variables(env: Env) -> dict[str, str]:
    """What a run in ``env`` sets: the AI SDK's install folder for an npm environment (``WIRECONF_AI_SDK``,
    which ``--impl ai-sdk`` reads), nothing for a Python one (its interpreter runs pytest)."""
    return {"WIRECONF_AI_SDK": str(env.folder)} if env.spec.ecosystem == NPM else {}
