"""The environment of a shipped runtime (conformance/runtimes.yaml's ``packages``), for the tests that
run it: made by ``wireconf.envs`` in the cache folder, or reused from it, and the corpus run there with
that environment's Python, as ``wireconf findings`` runs it.

A test skips only when the environment is not cached and the package registry cannot be reached (no
network), or when the runtime needs a Python not installed here (agentflow's ``>=3.12``); any other
failure to make it fails the test, and so does any failure once ``.ci/run`` has made it
(``WIRECONF_REQUIRE_<RUNTIME>``: it sets ``WIRECONF_REQUIRE_AGENTFLOW`` and
``WIRECONF_REQUIRE_LLAMAINDEX``)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CASES, REPO
from wireconf.commands.findings import RUNTIMES_FILE, listed_runtimes
from wireconf.envs.build import Env, EnvBuildError, NoInterpreterError, make

REGISTRY = ("pypi.org", 443)


def _registry_reachable() -> bool:
    try:
        socket.create_connection(REGISTRY, timeout=5).close()
    except OSError:
        return False
    return True


def required(name: str) -> str:
    """The variable that, set, makes a runtime's missing environment a failure instead of a skip."""
    return "WIRECONF_REQUIRE_" + name.upper().replace("-", "_")


def runtime_env(name: str) -> Env:
    """The runtime's environment, made or reused (skips when it cannot be made offline, or without the
    Python it requires, unless ``required(name)`` is set)."""
    runtime = {r.name: r for r in listed_runtimes(REPO / "conformance" / RUNTIMES_FILE)}[name]
    assert runtime.spec is not None, f"conformance/runtimes.yaml gives {name} no packages"
    try:
        return make(runtime.spec)
    except NoInterpreterError as error:
        reason = error.message
    except EnvBuildError as error:
        if _registry_reachable():
            raise
        reason = f"{name}'s environment is not cached and {REGISTRY[0]} cannot be reached: {error.message}"
    if os.environ.get(required(name)):
        pytest.fail(f"{reason}; {required(name)} is set (.ci/run made the environment)")
    pytest.skip(reason)


def run_in_env(env: Env, report: Path, *args: str, env_vars: dict[str, str] | None = None) -> list[dict]:
    """``pytest cases ARGS --report=REPORT`` with the environment's Python; the report's case records."""
    command = [
        str(env.python),
        "-m",
        "pytest",
        str(CASES),
        *args,
        f"--report={report}",
        "-p",
        "no:cacheprovider",
    ]
    done = subprocess.run(
        [*command, "-q", "--no-header"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env_vars or {})},
    )
    assert report.is_file(), (
        f"{' '.join(command)} wrote no report:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    )
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [record for record in records if record.get("kind")]


def _dev_extra() -> set[str]:
    import tomllib

    from wireconf.envs.spec import package_name

    with (REPO / "pyproject.toml").open("rb") as handle:
        project = tomllib.load(handle)["project"]
    return {package_name(p).lower() for p in project["optional-dependencies"]["dev"]}


def moved_out(name: str) -> bool:
    """Whether the runtime runs only from its own environment: runtimes.yaml gives it Python packages
    and the dev extra pins none of them."""
    from wireconf.envs.spec import PYTHON, package_name

    runtime = {r.name: r for r in listed_runtimes(REPO / "conformance" / RUNTIMES_FILE)}[name]
    if runtime.spec is None or runtime.spec.ecosystem != PYTHON:
        return False
    return not {package_name(p).lower() for p in runtime.spec.packages} & _dev_extra()


IN_ENV = "WIRECONF_IN_RUNTIME_ENV"
"""Set (to the runtime's name) when tests/integration/test_runtime_envs.py runs a runtime's in-process
tests with its environment's Python."""


def in_process(name: str, module: str) -> pytest.MarkDecorator:
    """For a test that imports the runtime in the test's own process: run where ``module`` imports (the
    runtime's environment, where tests/integration/test_runtime_envs.py runs it), skipped elsewhere with
    where it runs instead."""
    import importlib.util

    here = importlib.util.find_spec(module) is not None
    where = (
        f"{name} runs in its own environment: tests/integration/test_runtime_envs.py runs this test there"
        if moved_out(name)
        else f"{module} is not installed (pip install -e '.[{name}]')"
    )
    return pytest.mark.skipif(not here, reason=where)


def site_packages(env: Env) -> Path:
    """The environment's site-packages folder (its runtime and SDKs, as installed there)."""
    done = subprocess.run(
        [str(env.python), "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(done.stdout.strip())
