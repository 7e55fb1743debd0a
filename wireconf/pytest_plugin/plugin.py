"""The pytest plugin (entry point ``pytest11: wireconf``): inert until a run uses wireconf.

wireconf is installed beside a runtime's own tests, so loading it must cost that project nothing and
change nothing in it: this module imports pytest and defines the options (``options``), no more. (In a
run that uses wireconf, it also hashes the corpora of the command line, ``corpus_snapshot``, and marks
them read-only for every sandbox, ``wireconf.cassettes.netns.protect``; then, with ``--impl
exec:COMMAND``, it starts the runtime's process before the harness is imported,
``wireconf.exec_protocol.launch``: the runtime never runs before the corpus is hashed.) The
registries, the implementation under test, the session, the runner and the garbage-collector measures
(the hooks of ``ACTIVE_PLUGINS``) come into being only in a run that uses wireconf: ``--wireconf``,
``--impl`` or another option only such a run reads given (``options.ASKING``), a command-line path in a
corpus (at or below a folder that holds ``rules.yaml``), or, failing those, the first corpus file
pytest collects. An installed extension that is broken (a
``wireconf.kinds`` entry point that fails to load) is therefore an error only in such a run.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import pytest

from wireconf.pytest_plugin.corpus_snapshot import corpus_root, take_at_start
from wireconf.pytest_plugin.options import add_options, asks_for_wireconf

ACTIVE_PLUGINS = (
    "wireconf.pytest_plugin.active",
    "wireconf.pytest_plugin.record_mode",
    "wireconf.pytest_plugin.ci",
    "wireconf.pytest_plugin.frozen_heap",
    "wireconf.pytest_plugin.corpus_guard",
)
"""The hooks of a run that uses wireconf, registered in this order (the session first)."""

_ACTIVE = pytest.StashKey[bool]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    roots = list(dict.fromkeys(r for arg in config.args if (r := corpus_root(_argument_path(config, arg)))))
    if asks_for_wireconf(config) or roots:
        from wireconf.cassettes import netns

        take_at_start(config, roots)  # before any runtime runs: nothing it writes precedes this
        netns.protect([str(root) for root in roots])
        impl = config.getoption("wireconf_impl")
        if isinstance(impl, str) and impl.startswith("exec:"):
            _start_early(impl.removeprefix("exec:"), config)
        activate(config)


def _start_early(command: str, config: pytest.Config | None = None) -> None:
    """Start the ``exec:`` runtime now, so that it says hello while the harness is imported: with the
    environment the adapter would start it with (no provider key; the run's ``--kind`` and ``--api``,
    ``launch.set_selection``), which needs the providers' registry only. A registry that cannot load (a
    broken extension) is left to the harness, which says why."""
    from wireconf.core.errors import WireconfError
    from wireconf.exec_protocol import launch

    if config is not None:
        kinds, apis = config.getoption("wireconf_kinds"), config.getoption("wireconf_apis")
        launch.set_selection(kinds or [], apis or [])
    try:
        from wireconf.providers.runtime_environ import runtime_environ

        env = launch.selection(runtime_environ(os.environ))
    except WireconfError:
        return
    launch.start_early(command, env)


def activate(config: pytest.Config) -> None:
    """Register the hooks of a wireconf run in this config (once). pytest calls ``pytest_configure``
    of a plugin registered after configuration began, so each sets itself up as if loaded at start."""
    if config.stash.get(_ACTIVE, False):
        return
    config.stash[_ACTIVE] = True
    for name in ACTIVE_PLUGINS:
        if config.pluginmanager.get_plugin(name) is None:
            config.pluginmanager.register(importlib.import_module(name), name)


def is_active(config: pytest.Config) -> bool:
    return config.stash.get(_ACTIVE, False)


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """A corpus file found where the command line did not point at a corpus (``pytest .`` above one)
    makes the run a wireconf run from here on; once active, ``active`` collects."""
    if file_path.suffix not in (".yaml", ".yml") or is_active(parent.config):
        return None
    if not _in_corpus(file_path.parent):
        return None
    activate(parent.config)
    from wireconf.pytest_plugin import active

    return active.pytest_collect_file(file_path, parent)


def _argument_path(config: pytest.Config, arg: str) -> Path:
    return config.invocation_params.dir / arg.split("::", 1)[0]


def _in_corpus(path: Path) -> bool:
    """Whether ``path`` lies in a corpus: at or below a folder holding ``rules.yaml``."""
    return corpus_root(path) is not None
