"""--record-mode has vcrpy's meanings, per e2e cassette, against the fake provider server."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import REPO
from tests.integration.test_record_replay import write_corpus
from wireconf.cassettes.recording import RecordingPolicy
from wireconf.cassettes.store import read_cassette

CHAT = "e2e.openai.chat.fake-chat"
TWICE = "--impl=tests.fakes.e2e_misbehaving:twice"
REFERENCE = "--impl=reference"


def record(run_corpus, corpus, cassettes, mode, *extra):
    only = f"{CHAT} and not stream and not deviates"
    return run_corpus(f"--record-mode={mode}", f"--cassettes={cassettes}", "-k", only, *extra, target=corpus)


@pytest.fixture
def recorded(fake_provider, pytester, run_corpus):
    """The chat case recorded once (one interaction), and the server's request log emptied."""
    corpus = write_corpus(pytester.path)
    cassettes = pytester.path / "cassettes"
    assert record(run_corpus, corpus, cassettes, "once", REFERENCE).outcomes == {CHAT: "passed"}
    fake_provider.requests.clear()
    return corpus, cassettes, cassettes / "openai" / "fake-chat.yaml"


def test_once_replays_an_existing_cassette(recorded, fake_provider, run_corpus):
    corpus, cassettes, path = recorded
    before = path.read_bytes()
    assert record(run_corpus, corpus, cassettes, "once", REFERENCE).outcomes == {CHAT: "passed"}
    assert fake_provider.requests == [] and path.read_bytes() == before


def test_new_episodes_replays_what_matches_and_appends_what_does_not(recorded, fake_provider, run_corpus):
    corpus, cassettes, path = recorded
    run = record(run_corpus, corpus, cassettes, "new_episodes", TWICE)
    assert len(fake_provider.requests) == 1  # the first request was answered by the cassette
    assert len(read_cassette(path).interactions) == 2
    assert "the case expects one request through the SDK; the runtime sent 2" in run.longreprs[CHAT]
    assert "matches no recorded interaction" not in run.longreprs[CHAT]


def test_all_re_records_and_replaces_the_interactions_it_matches(recorded, fake_provider, run_corpus):
    corpus, cassettes, path = recorded
    assert record(run_corpus, corpus, cassettes, "all", REFERENCE).outcomes == {CHAT: "passed"}
    assert len(fake_provider.requests) == 1
    assert len(read_cassette(path).interactions) == 1


def test_none_never_records(recorded, fake_provider, run_corpus):
    corpus, cassettes, path = recorded
    run = record(run_corpus, corpus, cassettes, "none", TWICE)
    assert fake_provider.requests == [] and len(read_cassette(path).interactions) == 1
    assert (
        "request 2 (POST http" in run.longreprs[CHAT]
        and "matches no recorded interaction" in run.longreprs[CHAT]
    )


def test_an_imported_cassette_is_replayed_read_only_in_every_mode(fake_provider, pytester, run_corpus):
    cassettes = pytester.path / "cassettes"
    shutil.copytree(REPO / "cassettes", cassettes)
    path = next((cassettes / "openai").glob("chat__01__*.yaml"))
    before = path.read_bytes()
    run = run_corpus(
        "--record-mode=all",
        f"--cassettes={cassettes}",
        "-k",
        "e2e.openai.chat.text-reply",
        target=REPO / "cases",
    )
    assert run.outcomes == {"e2e.openai.chat.text-reply": "passed"}
    assert fake_provider.requests == [] and path.read_bytes() == before


@pytest.mark.parametrize(
    ("mode", "exists", "writable", "effective"),
    [
        ("none", True, True, "none"),
        ("once", False, True, "once"),
        ("once", True, True, "none"),
        ("new_episodes", True, True, "new_episodes"),
        ("all", True, True, "all"),
        ("all", True, False, "none"),  # imported or synthetic: never re-recorded
        ("new_episodes", True, False, "none"),
    ],
)
def test_the_effective_mode_of_a_cassette(mode, exists, writable, effective):
    assert RecordingPolicy(mode).effective_mode(exists, writable) == effective


def test_keys_are_needed_only_where_something_may_be_recorded():
    policy = RecordingPolicy("once", environ={})
    assert policy.skip_reason("openai", exists=True, writable=True) is None
    assert "OPENAI_API_KEY is not set" in (policy.skip_reason("openai", exists=False, writable=True) or "")
    gemini = RecordingPolicy("all", environ={"GOOGLE_API_KEY": "AIza-something"})
    assert gemini.skip_reason("google", exists=True, writable=True) is None
    assert "GEMINI_API_KEY or GOOGLE_API_KEY" in (
        RecordingPolicy("all", {}).skip_reason("google", True, True) or ""
    )
    with pytest.raises(ValueError, match="record mode 'sometimes' is not one of"):
        RecordingPolicy("sometimes")


def test_an_unknown_record_mode_is_a_usage_error(pytester):
    pytester.syspathinsert(REPO)
    result = pytester.runpytest_inprocess("--record-mode=sometimes", str(REPO / "cases"), "--co", "-q")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*argument --record-mode: invalid choice: 'sometimes'*"])


# --- recordings that overlap, time out, or are killed ------------------------------------------------

SLOW_WRITES = """\
import time

import wireconf.cassettes.writer as writer

_write = writer.write_atomic


def _slow(path, text):
    time.sleep(0.5)  # two recordings finishing together overlap between reading and writing
    _write(path, text)


writer.write_atomic = _slow
"""


def _recording_process(corpus, cassettes, plugin_dir, impl, mode):
    import os
    import subprocess
    import sys

    args = [sys.executable, "-m", "pytest", str(corpus), "-q", "-p", "no:cacheprovider", "-p", "slow_writes"]
    args += [
        impl,
        f"--record-mode={mode}",
        f"--cassettes={cassettes}",
        "-k",
        f"{CHAT} and not stream and not deviates",
    ]
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{plugin_dir}"}
    return subprocess.Popen(
        args, cwd=corpus.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )


def test_overlapping_recordings_into_one_cassette_keep_every_interaction(recorded, fake_provider, tmp_path):
    import threading

    corpus, cassettes, path = recorded
    (tmp_path / "slow_writes.py").write_text(SLOW_WRITES)
    fake_provider.barrier = threading.Barrier(2)  # both runs' new requests are answered together
    runs = [_recording_process(corpus, cassettes, tmp_path, TWICE, "new_episodes") for _ in range(2)]
    outputs = [run.communicate(timeout=300)[0].decode() for run in runs]
    assert len(fake_provider.requests) == 2, outputs
    assert len(read_cassette(path).interactions) == 3, outputs  # the first, and one from each run


SHARED = """\
x-e2e: &e2e {kind: e2e, rules: [7.8/through-the-sdk], api: openai.chat, cassette: openai/shared}
cases:
  - <<: *e2e
    id: e2e.openai.chat.shared-first
    agent: {model: {id: gpt-fake}}
    messages: [{role: user, content: [{kind: text, value: first}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: first}]}
    expect: "You said: first"
  - <<: *e2e
    id: e2e.openai.chat.shared-second
    agent: {model: {id: gpt-fake}}
    messages: [{role: user, content: [{kind: text, value: second}]}]
    expect_request: {model: gpt-fake, messages: [{role: user, content: second}]}
    expect: "You said: second"
"""


def test_xdist_workers_recording_into_one_cassette_keep_every_interaction(fake_provider, pytester, tmp_path):
    import os
    import subprocess
    import sys
    import threading

    corpus = write_corpus(pytester.path, SHARED)
    cassettes = pytester.path / "cassettes"
    (tmp_path / "slow_writes.py").write_text(SLOW_WRITES)
    fake_provider.barrier = threading.Barrier(2)  # each worker's request is answered at the same moment
    args = [sys.executable, "-m", "pytest", str(corpus), "-p", "no:cacheprovider", "-p", "slow_writes"]
    args += ["-n", "2", REFERENCE, "--record-mode=new_episodes", f"--cassettes={cassettes}", "-k", "shared"]
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{tmp_path}"}
    done = subprocess.run(args, cwd=pytester.path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]  # two cases, one per worker (xdist's round robin)
    assert len(fake_provider.requests) == 2, done.stdout[-3000:]
    interactions = read_cassette(cassettes / "openai" / "shared.yaml").interactions
    assert len(interactions) == 2, done.stdout[-3000:]


def test_the_summary_lists_what_was_recorded(fake_provider, pytester):
    pytester.syspathinsert(REPO)
    corpus = write_corpus(pytester.path)
    result = pytester.runpytest(
        str(corpus), "-p", "no:cacheprovider", REFERENCE, "--record-mode=once",
        f"--cassettes={pytester.path / 'cassettes'}", "-k", f"{CHAT} and not stream and not deviates",
    )  # fmt: skip
    result.stdout.fnmatch_lines(["*wireconf cassettes*", "recorded cassettes/openai/fake-chat.yaml"])


def test_recorded_files_are_readable_like_the_rest_of_the_repository(recorded):
    import os

    _, _, path = recorded
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask


def test_an_orphan_temporary_file_does_not_survive_the_next_run(recorded, run_corpus):
    corpus, cassettes, path = recorded
    orphan = path.parent / f".{path.name}.k9x2m1.tmp"  # what a kill -9 inside the atomic write leaves
    orphan.write_text("half a cassette")
    assert record(run_corpus, corpus, cassettes, "none", REFERENCE).outcomes == {CHAT: "passed"}
    assert not orphan.exists()


@pytest.mark.parametrize("runner", ["process", "thread"])
def test_a_recording_that_times_out_writes_nothing(fake_provider, pytester, run_corpus, runner):
    import time

    fake_provider.hang_streams = True
    corpus = write_corpus(pytester.path)
    cassettes = pytester.path / "cassettes"
    run = run_corpus(
        "--impl=tests.fakes.sdk_echo:adapter", "--record-mode=once", f"--cassettes={cassettes}",
        "--case-timeout=1", f"--case-runner={runner}", "-k", "fake-chat-stream", target=corpus,
    )  # fmt: skip
    assert run.outcomes == {"e2e.openai.chat.fake-chat-stream": "error"}
    fake_provider.release.set()  # the server finishes the stream now, for whoever still listens
    assert fake_provider.stream_finished.wait(30)
    time.sleep(0.5)  # an abandoned call would write its cassette right after the stream ends
    assert [p for p in cassettes.rglob("*.yaml")] == []


# --- a runtime that points the client it is handed elsewhere ------------------------------------------


@pytest.fixture
def listener():
    """A second server on 127.0.0.1 that keeps whatever reaches it (it must receive nothing)."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    received: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    received.append(conn.recv(65536) or b"(connected)")
                except OSError:
                    received.append(b"(connected)")

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1], received
    server.close()


@pytest.mark.parametrize("runner", ["process", "thread"])
def test_a_runtime_cannot_send_the_key_to_another_host_through_the_client(
    fake_provider, pytester, run_corpus, listener, monkeypatch, runner
):
    port, received = listener
    monkeypatch.setenv("WIRECONF_TEST_EXFIL_PORT", str(port))
    corpus = write_corpus(pytester.path)
    cassettes = pytester.path / "cassettes"
    run = record(
        run_corpus, corpus, cassettes, "once", "--impl=tests.fakes.e2e_misbehaving:exfiltrates",
        f"--case-runner={runner}",
    )  # fmt: skip
    assert run.outcomes == {CHAT: "error"}, run.longreprs  # as every network attempt of a runtime is
    assert f"it tried to reach:\n  connect 127.0.0.1:{port}" in run.longreprs[CHAT], run.longreprs[CHAT]
    assert received == []
    assert [r["path"] for r in fake_provider.requests] == ["/v1/chat/completions"]  # the provider alone
    written = "".join(p.read_text() for p in cassettes.rglob("*.yaml"))
    assert "/exfil" not in written and f":{port}" not in written and "psst" not in written
