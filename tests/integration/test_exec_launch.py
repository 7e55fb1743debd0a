"""Starting an exec: runtime early (while the harness loads), warming it up and stopping it quickly,
with nothing lost: the adapter takes the process started early, one nobody takes is stopped at exit,
the Python helper completes its SDK models before it says warm, and its quick exit still runs the
adapter's exit handlers."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest

from tests.conftest import REPO
from wireconf.exec_protocol import launch
from wireconf.exec_protocol.client import ExecAdapter, ExecError
from wireconf.providers.runtime_environ import runtime_environ

SERVE = f"{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve"
MARK = "WIRECONF_TEST_EXIT_MARK"  # tests.fakes.exit_handler.MARK (imported, its handler would register here)


def test_the_adapter_takes_the_process_started_early_and_reads_its_hello(monkeypatch):
    monkeypatch.chdir(REPO)
    command = f"{SERVE} reference"
    env = runtime_environ(os.environ)  # the environment the adapter starts its runtime with
    launch.start_early(command, env)
    argv, _ = launch.command_argv(command)
    started = launch.take(argv, None, env)
    assert started is not None and started.poll() is None
    assert launch.take(argv, None, env) is None  # taken once

    launch.start_early(command, env)
    adapter = ExecAdapter(command)
    try:
        assert launch.take(argv, None, env) is None  # the adapter took it
        assert adapter.name == "reference" and "wire:openai.chat" in adapter.capabilities()
        assert adapter.restarts == 0
    finally:
        adapter.close()
        started.kill()
        started.wait()


def test_a_process_started_early_with_another_environment_is_not_taken(monkeypatch):
    """One started with this process's own environment (a provider key in it) is never the one an
    adapter uses: the adapter starts its runtime with ``runtime_environ`` of it."""
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-PLANTEDnotForTheRuntime000000000000")
    command = f"{SERVE} reference"
    argv, _ = launch.command_argv(command)
    launch.start_early(command, dict(os.environ))
    adapter, left = ExecAdapter(command), None
    try:
        left = launch.take(argv, None, dict(os.environ))
        assert left is not None and left.poll() is None  # not taken: the adapter started its own
        assert adapter.name == "reference"
    finally:
        adapter.close()
        if left is not None:
            left.kill()
            left.wait()


def test_the_plugin_starts_the_runtime_early_with_the_environment_the_adapter_takes(monkeypatch):
    """``pytest_configure``'s early start gives the runtime ``runtime_environ`` of pytest's environment,
    as ``Process`` does: so the adapter takes it, and it holds no key."""
    from wireconf.pytest_plugin import plugin

    planted = "sk-PLANTEDearlyStartKey000000000000000000"
    monkeypatch.setenv("OPENAI_API_KEY", planted)
    started: list[tuple[str, dict[str, str]]] = []
    monkeypatch.setattr(launch, "start_early", lambda command, env: started.append((command, dict(env))))
    plugin._start_early("node runtime.js")
    assert started == [("node runtime.js", launch.selection(runtime_environ(os.environ)))]
    assert planted not in str(started)


def test_the_early_start_names_the_run_selection_as_the_adapter_does(monkeypatch):
    """With ``--kind wire``, the runtime started early gets ``WIRECONF_KINDS=wire`` (what it may warm up
    for), and so does the environment the adapter starts it with: the adapter takes it."""
    from wireconf.pytest_plugin import plugin

    class Config:
        def getoption(self, name):
            return {"wireconf_kinds": ["wire"], "wireconf_apis": []}[name]

    started: list[dict[str, str]] = []
    monkeypatch.setattr(launch, "start_early", lambda command, env: started.append(dict(env)))
    try:
        plugin._start_early("node runtime.js", Config())
        assert started[0]["WIRECONF_KINDS"] == "wire" and "WIRECONF_APIS" not in started[0]
        assert started[0] == launch.selection(runtime_environ(os.environ))
    finally:
        launch.set_selection([], [])


def test_a_process_started_early_that_nobody_takes_is_stopped_at_exit(tmp_path):
    script = (
        "import sys; from wireconf.exec_protocol import launch; "
        "launch.start_early(f'{sys.executable} -c \"import time; time.sleep(60)\"', {}); "
        "print(next(iter(launch._EARLY.values())).pid)"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    pid = int(done.stdout.strip())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return  # gone, as it should be
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:  # reaped by init, or a zombie at most
        assert stat.read().split(")")[-1].split()[0] == "Z"


def test_a_process_that_ended_before_its_adapter_came_is_not_taken():
    """The adapter starts another one and reads why from it, rather than taking a process that is gone."""
    command = f"{shlex.quote(sys.executable)} -c pass"
    env = runtime_environ(os.environ)
    launch.start_early(command, env)
    argv, _ = launch.command_argv(command)
    started = launch._EARLY[launch._started(argv, None, env)]
    started.wait(timeout=30)
    assert launch.take(argv, None, env) is None
    assert started.stdout is not None and started.stdout.closed


def test_a_command_that_cannot_start_is_explained_by_the_adapter_not_the_early_start(tmp_path):
    command = str(tmp_path / "no-such-runtime")
    env = runtime_environ(os.environ)
    launch.start_early(command, env)  # best effort: nothing raised here
    with pytest.raises(ExecError, match="no such program"):
        ExecAdapter(command)
    leftover = launch.take(launch.command_argv(command)[0], None, env)
    if leftover is not None:  # the network-namespace wrapper, failing to start it
        assert leftover.wait(timeout=30) != 0


def test_a_command_line_that_does_not_parse_is_one_usage_error_naming_it(pytester):
    """An unclosed quote was an INTERNALERROR (shlex's ValueError); the early start leaves it to the
    adapter, which says what is wrong with the command."""
    result = pytester.runpytest_inprocess(
        str(REPO / "cases"), '--impl=exec:node "runtime.js', "-k", "nothing"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(['*exec:node "runtime.js is not a command line: No closing quotation*'])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_the_helpers_quick_exit_still_runs_the_adapters_exit_handlers(monkeypatch, tmp_path):
    mark = tmp_path / "mark"
    monkeypatch.setenv(MARK, str(mark))
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    adapter = ExecAdapter(f"{SERVE} tests.fakes.exit_handler:adapter", cwd=str(REPO))
    adapter.ready()
    adapter.close()
    assert mark.read_text(encoding="utf-8") == "exit handler ran"


def test_a_run_starts_its_runtime_once_early_and_uses_that_process(run_corpus, tmp_path):
    """The plugin starts the runtime while the harness loads; the session's adapter takes that process
    rather than starting a second one."""
    log = tmp_path / "starts"
    command = f"sh -c 'echo started >> {log}; exec {SERVE} reference'"
    run = run_corpus(f"--impl=exec:{command}", "-k", "process.openai.chat.real-plain-text")
    assert run.with_outcome("passed") == {"process.openai.chat.real-plain-text"}
    assert log.read_text(encoding="utf-8").splitlines() == ["started"]


def test_completing_an_apis_models_leaves_none_of_them_to_build_on_first_use():
    """What the Python helper does while it warms up (``serve.warm_up``), in a fresh interpreter (the
    models of this one may have been built by other tests)."""
    script = (
        "import importlib, pydantic; from wireconf.sdk.replay import complete_models; "
        "m = importlib.import_module('openai.types.responses'); "
        "models = [v for v in vars(m).values() "
        "if isinstance(v, type) and issubclass(v, pydantic.BaseModel)]; "
        "before = sum(not v.__pydantic_complete__ for v in models); complete_models('openai.responses'); "
        "print(len(models), before, sum(not v.__pydantic_complete__ for v in models))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO
    )
    models, before, after = map(int, done.stdout.split())
    assert models > 50 and before > 0 and after == 0
