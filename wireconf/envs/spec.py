"""What an environment holds (``EnvSpec``) and which of its packages ``--releases`` varies (``Series``),
as ``conformance/runtimes.yaml`` declares them; the cache key of an environment."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass, replace

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from wireconf.core.errors import WireconfError

PYTHON = "python"
NPM = "npm"
ECOSYSTEMS = (PYTHON, NPM)
REQUIRES_PYTHON = "requires-python"
"""The runtimes.yaml key of a Python environment's interpreter requirement (as pyproject.toml's)."""

_NAME = re.compile(r"^\s*(@?[A-Za-z0-9][A-Za-z0-9._/-]*)")


class EnvSpecError(WireconfError):
    """An environment declared in runtimes.yaml that cannot be made as written."""


def package_name(requirement: str) -> str:
    """The package a requirement names: ``langchain-openai==1.7.4`` → ``langchain-openai``,
    ``@ai-sdk/openai@3.0.141`` → ``@ai-sdk/openai``, ``x[extra]>=1; python_version>='3.12'`` → ``x``."""
    text = requirement.strip()
    if text.startswith("@"):  # an npm scope: the version follows the second @
        return text if "@" not in text[1:] else text[: text.index("@", 1)]
    match = _NAME.match(text.split("@", 1)[0])
    return match.group(1) if match else text


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Series:
    """A package whose releases ``--releases N`` judges one by one (the runtime's other pins kept), on
    the cases of ``apis`` (all when empty), among the releases ``within`` allows (a version specifier,
    e.g. the major line the adapter is written for; ``""``: any)."""

    package: str
    apis: tuple[str, ...] = ()
    within: str = ""


@dataclass(frozen=True)
class EnvSpec:
    """One environment: its runtime's name, ecosystem and requirements (pip's ``name==1.0`` for Python,
    ``name@1.0`` for npm). ``release`` is the ``package==version`` that made it differ from the runtime's
    pinned environment (``""`` for that one). ``requires_python`` is a version specifier the environment's
    interpreter must meet (``">=3.12"``; ``""``: the one wireconf runs on), found among those installed
    (``wireconf.envs.interpreters``)."""

    name: str
    ecosystem: str
    packages: tuple[str, ...]
    release: str = ""
    requires_python: str = ""

    def key(self, *extra: str, python: str = "") -> str:
        """16 hex digits of what the environment is made from (the ecosystem, the sorted requirements,
        the interpreter's ``major.minor`` for Python (``python``, else this one's), its requirement, and
        ``extra``: the project's own requirements and checkout)."""
        parts = [self.ecosystem, *sorted(self.packages), *extra]
        if self.ecosystem == PYTHON:
            parts.append(python or ".".join(map(str, sys.version_info[:2])))
            if self.requires_python:
                parts.append(f"requires-python {self.requires_python}")
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]

    @property
    def folder_name(self) -> str:
        """The environment's folder name before its key: its ecosystem only, so that runtimes (and
        releases) with the same requirements share one environment (the folder's log names them)."""
        return self.ecosystem

    def with_release(self, package: str, version: str) -> EnvSpec:
        """This environment with ``package`` at ``version`` in place of its pin (added when not pinned)."""
        pin = f"{package}@{version}" if self.ecosystem == NPM else f"{package}=={version}"
        kept = [p for p in self.packages if _normal(package_name(p)) != _normal(package)]
        return replace(self, packages=(*kept, pin), release=pin)


def parse_env(name: str, entry: dict[str, object], where: str) -> tuple[EnvSpec | None, tuple[Series, ...]]:
    """The environment and series of one ``runtimes.yaml`` entry (``None`` and ``()`` when it declares no
    ``packages``: it runs in the project's environment, or one made apart)."""
    packages = entry.get("packages")
    if packages is None:
        if entry.get("releases"):
            raise EnvSpecError(f"runtime {name!r} has releases but no packages", path=where)
        return None, ()
    ecosystem = str(entry.get("ecosystem", PYTHON))
    if ecosystem not in ECOSYSTEMS:
        raise EnvSpecError(
            f"runtime {name!r}: ecosystem {ecosystem!r} is not one of {ECOSYSTEMS}", path=where
        )
    if not isinstance(packages, list) or not all(isinstance(p, str) and p for p in packages):
        raise EnvSpecError(f"runtime {name!r}: packages must be a list of requirements", path=where)
    releases = entry.get("releases") or []
    if not isinstance(releases, list):
        raise EnvSpecError(f"runtime {name!r}: releases must be a list", path=where)
    requires_python = str(entry.get(REQUIRES_PYTHON) or "")
    if requires_python:
        if ecosystem != PYTHON:
            raise EnvSpecError(f"runtime {name!r}: {REQUIRES_PYTHON} is for a Python environment", path=where)
        try:
            SpecifierSet(requires_python)
        except InvalidSpecifier as error:
            raise EnvSpecError(
                f"runtime {name!r}: {REQUIRES_PYTHON} {requires_python!r} is not a version specifier "
                f"({error})",
                path=where,
            ) from error
    series = []
    for item in releases:
        if not isinstance(item, dict) or not isinstance(item.get("package"), str):
            raise EnvSpecError(f"runtime {name!r}: each of releases needs a package", path=where)
        apis = item.get("api") or []
        series.append(Series(item["package"], tuple(map(str, apis)), str(item.get("within") or "")))
    return EnvSpec(name, ecosystem, tuple(packages), requires_python=requires_python), tuple(series)
