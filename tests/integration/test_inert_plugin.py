"""wireconf installed beside a runtime's own tests costs that project nothing until it is used: loading the
plugin imports pytest and defines options, the project's tests see the garbage collector on, and a broken
wireconf extension is an error only in a run that uses wireconf."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from wireconf.cassettes.recording import MODES
from wireconf.judging.profile import PROFILES
from wireconf.pytest_plugin import options
from wireconf.pytest_plugin.plugin import ACTIVE_PLUGINS
from wireconf.pytest_plugin.runners import DEFAULT_RUNNER, RUNNERS

PLAIN_TEST = """\
import gc

COLLECTOR_ON_AT_IMPORT = gc.isenabled()


def test_the_project_s_own_test(pytestconfig):
    assert COLLECTOR_ON_AT_IMPORT, "the collector was off while this module was imported"
    assert gc.isenabled()
    plugins = pytestconfig.pluginmanager
    assert plugins.has_plugin("wireconf"), "the wireconf plugin is not loaded: this test proves nothing"
    assert not [name for name in {active!r} if plugins.has_plugin(name)]
"""


def _plain_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "test_plain.py").write_text(PLAIN_TEST.format(active=list(ACTIVE_PLUGINS)))
    return root


def _pytest(cwd: Path, *args: str, path: list[Path] = ()) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
    if path:
        env["PYTHONPATH"] = os.pathsep.join([*map(str, path), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _broken_extension(site: Path) -> Path:
    """A distribution whose ``wireconf.kinds`` entry point names a module that does not exist."""
    info = site / "broken_ext-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-ext\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[wireconf.kinds]\nbroken = no_such_module_of_anyone:KIND\n")
    return site


def test_loading_the_plugin_imports_no_registry_session_or_reference():
    """In a fresh interpreter, as pytest loads entry points."""
    probe = textwrap.dedent(
        """
        import json, sys
        import wireconf.pytest_plugin.plugin
        print(json.dumps(sorted(sys.modules)))
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout))
    assert "wireconf.pytest_plugin.plugin" in loaded
    heavy = {
        name
        for name in loaded
        if name.split(".")[0] in ("reference_impl", "pydantic", "openai", "yaml")
        or name.startswith(("wireconf.kinds", "wireconf.providers", "wireconf.corpus", "wireconf.judging"))
        or name in ACTIVE_PLUGINS
        or name.startswith(("wireconf.pytest_plugin.session", "wireconf.pytest_plugin.runners"))
    }
    assert not heavy


def test_a_plain_project_sees_the_collector_on_and_no_wireconf_session(tmp_path):
    done = _pytest(_plain_project(tmp_path / "project"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    assert "wireconf " not in done.stdout.replace("plugins: wireconf-", "")  # no header, no summary


def test_a_broken_wireconf_extension_touches_only_runs_that_use_wireconf(tmp_path):
    site = _broken_extension(tmp_path / "site")
    project = _plain_project(tmp_path / "project")
    plain = _pytest(project, path=[site])
    assert plain.returncode == 0, plain.stdout + plain.stderr
    # the same installation, asked for wireconf: the entry point is an error naming itself
    used = _pytest(project, "--impl", "reference", "--co", "-q", path=[site])
    assert used.returncode != 0
    assert "wireconf.kinds: broken = no_such_module_of_anyone:KIND" in used.stdout + used.stderr


def test_the_option_choices_are_the_ones_the_run_knows():
    """The options are spelled out without importing the modules that act on them."""
    assert tuple(PROFILES) == options.PROFILE_NAMES
    assert options.RUNNER_NAMES == RUNNERS
    assert options.DEFAULT_RUNNER == DEFAULT_RUNNER
    assert options.RECORD_MODES == MODES


@pytest.mark.parametrize("asked", [[], ["--impl=reference"], ["--report=out.jsonl"]])
def test_the_session_exists_only_when_asked(pytester, asked):
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    seen: list[bool] = []

    class Probe:
        def pytest_sessionfinish(self, session: pytest.Session) -> None:
            seen.append(session.config.pluginmanager.has_plugin("wireconf.pytest_plugin.active"))

    reprec = pytester.inline_run("-p", "no:cacheprovider", *asked, plugins=[Probe()])
    reprec.assertoutcome(passed=1)
    assert seen == [bool(asked)]
