"""The process runner starts the cases pytest runs next while the pytest process reports the current one.
Each case is still judged on what it alone did, and a case pytest does not run is never judged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.integration.test_hostile_adapters import HOSTILE, PROCESS, STREAM, WIRE, WIRE_3, WIRE_4, only
from wireconf.pytest_plugin.runners import wait_reaped

WIRE_STOP = "wire.openai.chat.option-max-output-tokens"  # between WIRE_3 and WIRE_4 in options.yaml

PROBE = """
from wireconf.pytest_plugin.session import get_session

def pytest_sessionfinish(session):
    runner = get_session(session.config).used_runner
    if runner is None:  # an xdist controller: its workers ran the cases
        return
    with open({path!r}, "w") as out:
        out.write(f"{{runner.ahead}} {{runner.forks}}")
"""

SKIPS_BY_MARK = """
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        if item.name.endswith("max-output-tokens"):
            item.add_marker(pytest.mark.skip(reason="skipped by a plugin's mark"))
"""

SKIPS_IN_SETUP = """
import pytest

def pytest_runtest_setup(item):
    if item.name.endswith("max-output-tokens"):
        pytest.skip("skipped by a plugin's setup")
"""

SETUP_PROBE = """
from wireconf.pytest_plugin.session import get_session

def pytest_runtest_setup(item):
    runner = get_session(item.config).used_runner
    with open({path!r}, "a") as out:
        out.write(f"{{getattr(runner, 'forks', 0)}}\\n")
"""


@pytest.fixture
def probe(pytester: pytest.Pytester):
    """A plugin that writes, at the session's end, how many cases the runner started early and how many
    runner processes it forked; returns a reader of those two numbers."""
    path = pytester.path / "probe.txt"
    pytester.makepyfile(ahead_probe=PROBE.format(path=str(path)))
    pytester.syspathinsert()

    def read() -> tuple[int, int]:
        ahead, forks = path.read_text().split()
        return int(ahead), int(forks)

    return read


@pytest.fixture
def notes(tmp_path, monkeypatch):
    folder = tmp_path / "markers"
    folder.mkdir()
    monkeypatch.setenv("WIRECONF_HOSTILE_DIR", str(folder))
    return folder / "requests"


def test_a_write_into_the_cassettes_folder_is_blamed_on_the_case_that_made_it(
    run_corpus, probe, tmp_path, monkeypatch
):
    """The stream case writes while the cases before it are being reported: only it is an error. It runs
    after them (``items.streams_last``), though the corpus collects it between them."""
    cassettes = tmp_path / "cassettes"
    cassettes.mkdir()
    for path in (REPO / "cassettes").iterdir():
        (cassettes / path.name).symlink_to(path)  # the recorded files stay read-only; the folder is ours
    (cassettes / "openai").unlink()
    (cassettes / "openai").mkdir()
    for path in (REPO / "cassettes" / "openai").iterdir():
        (cassettes / "openai" / path.name).write_bytes(path.read_bytes())
    monkeypatch.setenv("WIRECONF_HOSTILE_CASSETTES", str(cassettes))
    run = run_corpus(
        "-p", "ahead_probe", f"--impl={HOSTILE}:writes_cassettes_in_a_stream", f"--cassettes={cassettes}",
        *only(PROCESS, STREAM, WIRE),
    )  # fmt: skip
    assert run.with_outcome("error") == {STREAM}, run.longreprs
    assert run.with_outcome("passed") == {PROCESS, WIRE}
    assert list(run.outcomes) == [PROCESS, WIRE, STREAM]  # in the order pytest reported them
    assert "openai/written-by-runtime.yaml" in run.longreprs[STREAM]
    ahead, _ = probe()
    assert ahead == 2  # the stream case and the wire case were both started before pytest asked


def test_a_case_a_plugin_skips_by_mark_is_never_started(run_corpus, pytester, probe, notes):
    pytester.makepyfile(skips_by_mark=SKIPS_BY_MARK)
    run = run_corpus(
        "-p", "ahead_probe", "-p", "skips_by_mark", f"--impl={HOSTILE}:notes_requests",
        *only(WIRE_3, WIRE_STOP, WIRE_4),
    )  # fmt: skip
    assert run.with_outcome("skipped") == {WIRE_STOP}
    assert run.with_outcome("passed") == {WIRE_3, WIRE_4}
    calls = notes.read_text().splitlines()
    assert len(calls) == 2 and not any("maxOutputTokens" in call for call in calls), calls
    assert probe() == (0, 1)  # neither neighbour of the skipped case could be started early


def test_a_case_another_plugin_skips_in_setup_is_not_judged_and_the_next_runs_afresh(
    run_corpus, pytester, probe, notes
):
    """The skipped case was already started (nothing marked it), and the one after it too; both answers
    are dropped with the runner process, and the case after the skipped one is judged in a new one."""
    pytester.makepyfile(skips_in_setup=SKIPS_IN_SETUP)
    run = run_corpus(
        "-p", "ahead_probe", "-p", "skips_in_setup", f"--impl={HOSTILE}:notes_requests",
        *only(WIRE_3, WIRE_STOP, WIRE_4),
    )  # fmt: skip
    assert run.with_outcome("skipped") == {WIRE_STOP}
    assert run.with_outcome("passed") == {WIRE_3, WIRE_4}, run.longreprs
    calls = notes.read_text().splitlines()
    assert any("topP" in call for call in calls), calls
    ahead, forks = probe()
    assert forks == 2, (ahead, forks)


def test_on_an_xdist_worker_only_the_next_case_is_started_early(pytester, probe, monkeypatch):
    """A worker is handed its items as it goes: beyond ``nextitem`` it cannot know what it runs."""
    monkeypatch.setenv("PYTHONPATH", f"{pytester.path}:{REPO}")
    result = pytester.runpytest_subprocess(
        str(REPO / "cases"), "-p", "no:cacheprovider", "-p", "ahead_probe", "-n", "1",
        *only(WIRE, WIRE_3, WIRE_STOP, WIRE_4),
    )  # fmt: skip
    result.assert_outcomes(passed=4)
    ahead, forks = probe()
    assert (ahead, forks) == (3, 1)  # each case but the first was started one case early


def _child_pids() -> set[int]:
    """This process's children, zombies included (Linux /proc)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                found.add(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads child processes from /proc")
def test_the_runner_process_a_session_ends_with_is_reaped_not_left_a_zombie(run_corpus, probe):
    """The session's end kills its runner process and leaves the reaping to a thread: once that is done,
    no process of the session is left, not even a zombie."""
    before = _child_pids()
    run = run_corpus("-p", "ahead_probe", *only(WIRE, WIRE_3))
    assert run.with_outcome("passed") == {WIRE, WIRE_3}
    assert probe() == (1, 1)  # one runner process ran both cases
    wait_reaped()
    assert _child_pids() - before == set()


def test_the_runner_process_is_forked_before_the_first_case_asks_for_it(run_corpus, pytester, probe):
    """The run loop starts it (``CaseRunner.start_early``): it isolates itself while this process plans
    the run and begins the first case's protocol; the first case takes its hello before its result."""
    path = pytester.path / "setups.txt"
    pytester.makepyfile(setup_probe=SETUP_PROBE.format(path=str(path)))
    run = run_corpus("-p", "ahead_probe", "-p", "setup_probe", *only(WIRE, WIRE_3))
    assert run.with_outcome("passed") == {WIRE, WIRE_3}, run.longreprs
    assert path.read_text().split() == ["1", "1"]  # forked before either case's setup began
    assert probe() == (1, 1)  # and that one process ran both


def test_no_runner_process_is_forked_for_a_run_that_a_collection_error_stops(pytester, probe):
    """pytest's run loop runs nothing after an error of collection: the run loop starts no runner."""
    broken = pytester.makepyfile(test_broken="def test_(:\n")
    result = pytester.inline_run(
        str(REPO / "cases"), str(broken), "-p", "no:cacheprovider", "-p", "ahead_probe"
    )
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert not (pytester.path / "probe.txt").exists()  # the session made no runner at all
