"""Runs that share a cassettes folder each keep their own writes: an xdist worker's recording, or another
run's, is never blamed on the case another process was running (``wireconf.cassettes.watch``).

Each test makes the overlap certain rather than likely: the fake provider answers two requests only
together (a barrier) and every write waits half a second, or a case waits for the other run's write."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from tests.conftest import REPO
from tests.integration.test_record_modes import SLOW_WRITES
from tests.integration.test_record_replay import write_corpus

TWO = """\
x-e2e: &e2e {kind: e2e, rules: [7.8/through-the-sdk], api: openai.chat, agent: {model: {id: gpt-fake}}}
cases:
  - <<: *e2e
    id: e2e.openai.chat.first
    cassette: openai/first
    messages: [{role: user, content: [{kind: text, value: first}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: first}]}
    expect: "You said: first"
  - <<: *e2e
    id: e2e.openai.chat.second
    cassette: anthropic-less/second
    messages: [{role: user, content: [{kind: text, value: second}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: second}]}
    expect: "You said: second"
"""
"""Two cases on two cassettes, the second in a folder that does not exist yet (its creation is a change
of the folder too)."""

BLAMED = "changed while this case ran"


def _pytest(corpus, cassettes, plugin_dir, *args: str) -> list[str]:
    argv = [sys.executable, "-m", "pytest", str(corpus), "-p", "no:cacheprovider", "-p", "slow_writes"]
    return [*argv, f"--cassettes={cassettes}", *args]


def _env(plugin_dir, **extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{plugin_dir}", **extra}


def test_xdist_workers_recording_together_blame_no_case(fake_provider, pytester, tmp_path):
    corpus = write_corpus(pytester.path, TWO)
    cassettes = pytester.path / "cassettes"
    cassettes.mkdir()
    (tmp_path / "slow_writes.py").write_text(SLOW_WRITES)
    fake_provider.barrier = threading.Barrier(2)  # each worker's request is answered at the same moment
    args = _pytest(
        corpus,
        cassettes,
        tmp_path,
        "-n",
        "2",
        "--impl=reference",
        "--record-mode=all",
        "-k",
        "first or second",
    )
    done = subprocess.run(
        args, cwd=pytester.path, env=_env(tmp_path), capture_output=True, text=True, timeout=300
    )
    assert BLAMED not in done.stdout, done.stdout[-3000:]
    assert done.returncode == 0, done.stdout[-3000:]  # one case per worker (xdist's round robin)
    assert sorted(p.relative_to(cassettes).as_posix() for p in cassettes.rglob("*.yaml")) == [
        "anthropic-less/second.yaml",
        "openai/first.yaml",
    ]


def test_a_replay_run_beside_a_recording_run_blames_no_case(fake_provider, pytester, tmp_path):
    """The replay run's case waits until the recording run has written its cassette: the write lands
    while that case runs, in the same cassettes folder."""
    corpus = write_corpus(pytester.path, TWO)
    cassettes = pytester.path / "cassettes"
    (tmp_path / "slow_writes.py").write_text(SLOW_WRITES)
    first = _pytest(corpus, cassettes, tmp_path, "--impl=reference", "--record-mode=once", "-k", "first")
    done = subprocess.run(
        first, cwd=pytester.path, env=_env(tmp_path), capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:]  # the replayed case's cassette, recorded beforehand

    written = cassettes / "anthropic-less" / "second.yaml"
    waits = "--impl=tests.fakes.waits_for_a_write:adapter"
    replay = _pytest(corpus, cassettes, tmp_path, waits, "--record-mode=none", "-k", "first")
    record = _pytest(corpus, cassettes, tmp_path, "--impl=reference", "--record-mode=all", "-k", "second")
    env = _env(tmp_path, WIRECONF_TEST_WAIT_FOR=str(written))
    runs = [
        subprocess.Popen(
            argv, cwd=pytester.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        for argv in (replay, record)
    ]
    (replayed, _), (recorded, _) = (run.communicate(timeout=300) for run in runs)
    assert written.exists(), recorded[-3000:]
    assert BLAMED not in replayed, replayed[-3000:]
    assert runs[0].returncode == 0, replayed[-3000:]
    assert runs[1].returncode == 0, recorded[-3000:]
