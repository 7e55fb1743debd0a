"""The project's test command on xdist workers: the hook of tests/conftest.py, in a module of its own
(importing nothing of the harness) so that tests/integration/test_suite_config.py can give it to a small
project."""

from __future__ import annotations

import os

import pytest


def default_workers() -> int:
    """One xdist worker per core, at least two (the project's machine has two) and at most four (each
    worker imports the SDKs and litellm, and many tests start pytest processes of their own)."""
    return min(4, max(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 2))


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``pytest`` with no paths (pytest's testpaths: these tests and the corpus, README's test command)
    runs on xdist workers, a file at a time (``--dist loadfile``, so that a module's fixtures, such as
    test_install.py's wheel and venv, are built once): the suite is hundreds of small in-process runs
    and subprocesses, which spread well. (``xdist_group`` would be finer, but pytest-xdist 3.8 ignores
    it under pytest 9.2: pytest-dev/pytest-xdist#1386.) Runs given paths (``pytest cases``,
    ``pytest tests/unit/test_x.py``), runs that choose ``-n``/``--dist``/``--tx`` themselves (``-n 0``: one
    process), ``--pdb``/``--trace`` and ``--collect-only`` are left as they are. pytest calls this hook
    only in an initial conftest, so the corpus runs the tests start (pytester, subprocesses) are never
    changed; an xdist worker calls it too, with the controller's arguments, and must not fan out again."""
    if config.args_source != pytest.Config.ArgsSource.TESTPATHS:
        return
    if not config.pluginmanager.hasplugin("xdist"):
        return
    if hasattr(config, "workerinput") or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    option = config.option
    chosen = option.numprocesses is not None or option.dist != "no" or option.tx or option.distload
    debugging = config.getoption("usepdb", False) or config.getoption("trace", False)
    if chosen or debugging or option.collectonly:
        return
    option.numprocesses = default_workers()
    option.dist = "loadfile"
