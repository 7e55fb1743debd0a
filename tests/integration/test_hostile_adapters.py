"""A runtime that hangs, crashes, escapes to the network or returns what is not data costs one case,
named for what it did; the time limit holds whatever the runtime does, and nothing it leaves running
reaches a later case."""

from __future__ import annotations

import os
import re
import shlex
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.conftest import CASES, REPO, SUITE_CASE_TIMEOUT
from wireconf.cassettes import netns

HOSTILE = "tests.fakes.hostile"
PY_SERVE = f"{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve"

STREAM = "stream.openai.chat.real-text-deltas"
PROCESS = "process.openai.chat.real-plain-text"
MAPPING = "process.openai.chat.structured-nested-object-parsed"
WIRE = "wire.openai.chat.single-text-part-is-string"
WIRE_2 = "wire.openai.chat.empty-text-part-is-empty-string"
WIRE_3 = "wire.openai.chat.option-temperature"
WIRE_4 = "wire.openai.chat.option-top-p"
E2E = "e2e.openai.chat.text-reply"


def only(*case_ids: str) -> list[str]:
    return ["-k", " or ".join(case_ids)]


@pytest.fixture
def markers(tmp_path, monkeypatch):
    """Where the hostile fakes note what they did (and what they did after the harness gave up)."""
    folder = tmp_path / "markers"
    folder.mkdir()
    monkeypatch.setenv("WIRECONF_HOSTILE_DIR", str(folder))
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # runtime processes import tests.fakes.*
    return folder


@dataclass
class Listener:
    """A TCP and UDP listener on 127.0.0.1 that notes every connection and datagram it gets."""

    port: int = 0
    reached: list[str] = field(default_factory=list)


@pytest.fixture
def listener(monkeypatch) -> Iterator[Listener]:
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(16)
    port = tcp.getsockname()[1]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", port))
    found = Listener(port)
    stop = threading.Event()

    def serve(sock: socket.socket, what: str) -> None:
        sock.settimeout(0.1)
        while not stop.is_set():
            try:
                if what == "tcp":
                    conn, _ = sock.accept()
                    conn.close()
                else:
                    sock.recvfrom(64)
            except OSError:
                continue
            found.reached.append(what)

    threads = [
        threading.Thread(target=serve, args=(s, w), daemon=True) for s, w in ((tcp, "tcp"), (udp, "udp"))
    ]
    for thread in threads:
        thread.start()
    monkeypatch.setenv("WIRECONF_HOSTILE_LISTENER", f"127.0.0.1:{port}")
    yield found
    stop.set()
    for thread in threads:
        thread.join()
    tcp.close()
    udp.close()


# --- the time limit holds -------------------------------------------------------------------------


def test_code_that_holds_the_gil_is_stopped_at_the_time_limit(run_corpus, markers):
    run = run_corpus(f"--impl={HOSTILE}:gil_hang", "--case-timeout=1", *only(STREAM, PROCESS, WIRE))
    assert run.with_outcome("error") == {STREAM}
    assert run.with_outcome("passed") == {PROCESS, WIRE}
    text = run.longreprs[STREAM]
    assert "--case-timeout" in text and re.search(r"stopped after \d+\.\d s", text), text
    assert not (markers / "gil-woke").exists()  # stopped, not waited out


def test_a_result_whose_iteration_blocks_is_stopped_and_is_an_error(run_corpus, markers):
    run = run_corpus(f"--impl={HOSTILE}:blocking_mapping", "--case-timeout=1", *only(MAPPING, PROCESS))
    assert run.with_outcome("error") == {MAPPING}
    assert run.with_outcome("passed") == {PROCESS}
    assert "--case-timeout" in run.longreprs[MAPPING]
    assert not (markers / "mapping-woke").exists()


def _slow_preparation(monkeypatch, seconds: float) -> None:
    """The harness's own preparation of every case takes ``seconds`` (in the runner process too: the
    patched function is what it forks with)."""
    import time

    from wireconf.pytest_plugin.runners import child, inline, thread

    prepare = child.prepare_case

    def slow(*args):
        time.sleep(seconds)
        return prepare(*args)

    for runner in (child, inline, thread):
        monkeypatch.setattr(runner, "prepare_case", slow)


def test_the_preparation_has_a_budget_of_its_own_apart_from_the_case_timeout(run_corpus, monkeypatch):
    """--case-timeout is the runtime's: a preparation longer than it (within its own budget) costs the
    case nothing, since the time limit starts when the runner process marks the adapter call."""
    _slow_preparation(monkeypatch, 1.5)
    run = run_corpus("--case-runner=process", "--case-timeout=0.5", *only(PROCESS, WIRE))
    assert run.with_outcome("passed") == {PROCESS, WIRE}


def _slow_judging(monkeypatch, seconds: float) -> None:
    """The harness's own judging of every case takes ``seconds`` (the process runner's ``finish_case``
    and the other runners' ``judge_case``)."""
    import time

    from wireconf.pytest_plugin import case_run
    from wireconf.pytest_plugin.runners import inline, thread

    judge = case_run.judge_case

    def slow(*args):
        time.sleep(seconds)
        return judge(*args)

    for module in (case_run, inline, thread):
        monkeypatch.setattr(module, "judge_case", slow)


@pytest.mark.parametrize("runner", ["process", "thread"])
def test_judging_is_the_harnesss_time_not_the_runtimes(run_corpus, monkeypatch, runner):
    """--case-timeout is the runtime's: judging longer than it (building a provider's request type the
    first time a request differs takes seconds) costs the case nothing."""
    _slow_judging(monkeypatch, 1.5)
    run = run_corpus(f"--case-runner={runner}", "--case-timeout=0.5", *only(PROCESS, WIRE))
    assert run.with_outcome("passed") == {PROCESS, WIRE}, run.longreprs


SLOW_CALL = """\
import time

from tests.fakes.base import ChatFake


class SlowCall(ChatFake):
    name = "slow-call"

    def process(self, api, agent, response):
        time.sleep(0.9)
        return super().process(api, agent, response)


adapter = SlowCall()
"""


def test_a_limit_seen_running_stops_nothing_once_the_harness_judges(run_corpus, monkeypatch, pytester):
    """The pytest process looks at the case while its adapter call runs (the preparation took 1.2 s of
    looks every second), so it waits for the call's deadline; the call ends before it and the judging
    (1.5 s) goes past it: the case passes, the runtime kept its limit."""
    pytester.makepyfile(slow_call=SLOW_CALL)
    pytester.syspathinsert()
    _slow_preparation(monkeypatch, 1.2)
    _slow_judging(monkeypatch, 1.5)
    run = run_corpus("--case-runner=process", "--case-timeout=1", "--impl=slow_call:adapter", *only(PROCESS))
    assert run.with_outcome("passed") == {PROCESS}, run.longreprs


@pytest.mark.parametrize(
    ("limit", "slow", "said"),
    [
        ("PREPARE_LIMIT", _slow_preparation, "preparing the case's input"),
        ("JUDGE_LIMIT", _slow_judging, "judging what the runtime returned"),
    ],
)
def test_the_harnesss_own_work_over_its_budget_is_stopped_and_said_to_be_the_harnesss(
    run_corpus, monkeypatch, limit, slow, said
):
    """Preparing and judging each have a budget apart from --case-timeout: over it, the case is an error
    that says which part of the harness overran, never the runtime's timeout."""
    from wireconf.pytest_plugin.runners import forked

    monkeypatch.setattr(forked, limit, 1.0)
    slow(monkeypatch, 60)
    run = run_corpus("--case-runner=process", "--case-timeout=30", *only(WIRE))
    assert run.with_outcome("error") == {WIRE}
    text = run.longreprs[WIRE]
    assert said in text and re.search(r"did not finish within 1 s", text), text


def test_an_exec_runtime_whose_restart_hangs_once_is_tried_again_and_the_next_case_runs(run_corpus, markers):
    """A restart is the runtime's start-up, never the next case's doing: one that hangs is stopped after
    its bound (from the first start, not --case-timeout) and tried once more."""
    run = run_corpus(
        f"--impl=exec:{PY_SERVE} tests.fakes.exec_hostile:adapter",
        "--case-timeout=2",
        *only(WIRE, WIRE_2, WIRE_3),
    )
    assert run.outcomes == {WIRE: "error", WIRE_2: "passed", WIRE_3: "passed"}, run.longreprs
    assert "exited with status 3 while handling this case" in run.longreprs[WIRE]


def test_an_exec_runtime_that_never_restarts_errors_the_rest_at_once(run_corpus, markers, monkeypatch):
    monkeypatch.setenv("WIRECONF_HOSTILE_RESTART", "always")
    run = run_corpus(
        f"--impl=exec:{PY_SERVE} tests.fakes.exec_hostile:adapter",
        "--case-timeout=2",
        *only(WIRE, WIRE_2, WIRE_3, WIRE_4),
    )
    assert run.with_outcome("error") == {WIRE, WIRE_2, WIRE_3, WIRE_4}
    assert re.search(r"did not say hello within [\d.]+ s of its restart", run.longreprs[WIRE_2])
    assert "gave up restarting it" in run.longreprs[WIRE_3]
    assert "gave up restarting it" in run.longreprs[WIRE_4] and "did not say hello" in run.longreprs[WIRE_4]


def test_an_adapter_that_ends_its_process_costs_one_case_and_the_run_still_reports(pytester, markers):
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest_subprocess(
        str(CASES),
        "-p",
        "no:cacheprovider",
        f"--impl={HOSTILE}:exits",
        f"--junitxml={junit}",
        *only(WIRE, WIRE_2, PROCESS),
    )
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*ended its process*exit status 3*", "*wireconf conformance*"])
    assert 'errors="1"' in junit.read_text()


# --- abandoned work and the network -----------------------------------------------------------------


def test_work_left_running_by_a_timed_out_case_never_reaches_later_cases(run_corpus, markers, listener):
    run = run_corpus(
        f"--impl={HOSTILE}:retries_forever", "--case-timeout=1", *only(E2E, PROCESS, STREAM, WIRE, WIRE_2)
    )
    assert run.with_outcome("error") == {E2E}
    assert run.with_outcome("passed") == {PROCESS, STREAM, WIRE, WIRE_2}, run.longreprs
    assert listener.reached == []  # not during its case, not between cases, not after


def test_subprocesses_raw_sockets_and_udp_cannot_reach_the_network(run_corpus, markers, listener):
    run = run_corpus(f"--impl={HOSTILE}:escapes", *only(WIRE))
    assert listener.reached == []
    assert run.with_outcome("error") == {WIRE}  # an attempt is no verdict on the rules: an error
    assert f"127.0.0.1:{listener.port}" in run.longreprs[WIRE]


# --- results that are not finite data ---------------------------------------------------------------


def test_a_result_that_contains_itself_is_one_clear_line(run_corpus):
    run = run_corpus(f"--impl={HOSTILE}:self_reference", *only(PROCESS))
    assert run.with_outcome("error") == {PROCESS}
    text = run.longreprs[PROCESS]
    assert "contains itself" in text and "RecursionError" not in text
    assert len(text.splitlines()) < 12, text


def test_a_huge_result_gives_a_bounded_diff(run_corpus):
    run = run_corpus(f"--impl={HOSTILE}:huge_text", *only(PROCESS))
    assert run.with_outcome("failed") == {PROCESS}
    text = run.longreprs[PROCESS]
    assert len(text) < 20_000, len(text)
    assert "line 0 of a runaway answer" in text and "more" in text


def test_an_adapter_that_writes_into_the_cassettes_folder_is_noticed(run_corpus, tmp_path, monkeypatch):
    cassettes = tmp_path / "cassettes"
    (cassettes / "openai").mkdir(parents=True)
    for path in (REPO / "cassettes" / "openai").glob("chat__01__*.yaml"):
        (cassettes / "openai" / path.name).write_bytes(path.read_bytes())
    monkeypatch.setenv("WIRECONF_HOSTILE_CASSETTES", str(cassettes))
    run = run_corpus(f"--impl={HOSTILE}:writes_cassettes", f"--cassettes={cassettes}", *only(PROCESS))
    assert run.with_outcome("error") == {PROCESS}
    assert "openai/written-by-runtime.yaml" in run.longreprs[PROCESS]


def test_a_write_no_known_process_made_fails_the_run_and_blames_no_case(pytester, tmp_path, monkeypatch):
    """A file written by a subprocess of the runtime: no audit hook sees who wrote it (nor a ledger entry
    says another wireconf process did), so the case is judged on its own (it passes) and the run fails,
    naming the file and the case that was running."""
    cassettes = tmp_path / "cassettes"
    (cassettes / "openai").mkdir(parents=True)
    for path in (REPO / "cassettes" / "openai").glob("chat__01__*.yaml"):
        (cassettes / "openai" / path.name).write_bytes(path.read_bytes())
    monkeypatch.setenv("WIRECONF_HOSTILE_CASSETTES", str(cassettes))
    pytester.syspathinsert(REPO)
    result = pytester.runpytest_inprocess(
        str(CASES), "-p", "no:cacheprovider", SUITE_CASE_TIMEOUT, f"--cassettes={cassettes}",
        f"--impl={HOSTILE}:writes_cassettes_through_a_subprocess", *only(PROCESS),
    )  # fmt: skip
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*wireconf: the cassettes changed during the run*",
            f"*/openai/written-by-a-subprocess.yaml (while *{PROCESS}* ran)",
        ]
    )


def test_the_time_limit_holds_under_xdist_too(pytester, markers):
    result = pytester.runpytest_subprocess(
        str(CASES), "-p", "no:cacheprovider", "-n", "2", f"--impl={HOSTILE}:gil_hang", "--case-timeout=1",
        *only(STREAM, PROCESS, WIRE, WIRE_2),
    )  # fmt: skip
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        ["*did not finish within 1 s (--case-timeout): its runner process was stopped*"]
    )
    assert not (markers / "gil-woke").exists()


def test_an_exec_runtime_cannot_reach_the_network_either(run_corpus, markers, listener):
    run = run_corpus(f"--impl=exec:{PY_SERVE} {HOSTILE}:escapes", *only(WIRE))
    assert listener.reached == []
    assert WIRE in run.outcomes


# --- a privileged runtime cannot leave its sandbox ---------------------------------------------------

SANDBOX = "tests.fakes.leaves_the_sandbox"


def test_a_runtime_cannot_setns_back_into_the_network_it_was_taken_out_of(run_corpus, markers, listener):
    """As root (CI), the runner used to keep CAP_SYS_ADMIN: setns into the parent's namespace, then a
    raw socket reached 127.0.0.1 and the case passed."""
    run = run_corpus(f"--impl={SANDBOX}:setns", *only(WIRE))
    assert listener.reached == []
    assert run.with_outcome("error") == {WIRE}, run.longreprs  # the guarded attempt: an error, no verdict
    assert f"127.0.0.1:{listener.port} (thread" in run.longreprs[WIRE]


def test_an_exec_runtime_cannot_setns_back_either(run_corpus, markers, listener):
    run = run_corpus(f"--impl=exec:{PY_SERVE} {SANDBOX}:setns", *only(WIRE))
    assert listener.reached == []
    assert WIRE in run.outcomes


def _alive_with(token: str) -> list[str]:
    """The processes (not zombies) whose command line holds ``token``."""
    from pathlib import Path

    found = []
    for proc in Path("/proc").iterdir():
        try:
            if (
                token in (proc / "cmdline").read_bytes().decode(errors="replace")
                and " Z " not in (proc / "stat").read_text().rsplit(")", 1)[1][:3]
            ):
                found.append(proc.name)
        except OSError:
            continue
    return found


def _gone(token: str) -> list[str]:
    """Waits (up to 10 s: the kernel tears a killed process down in milliseconds) until no process
    holds ``token``; what is left."""
    import time

    deadline = time.monotonic() + 10
    while (left := _alive_with(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


@pytest.mark.parametrize(
    ("impl", "setsid"),
    [
        pytest.param(f"{SANDBOX}:children", "", id="in-process"),
        pytest.param(f"exec:{PY_SERVE} {SANDBOX}:children", "", id="exec"),
        pytest.param(f"exec:{PY_SERVE} {SANDBOX}:children", "1", id="exec-own-session"),
    ],
)
def test_a_runtimes_children_end_with_the_run(run_corpus, markers, monkeypatch, impl, setsid):
    import uuid

    token = f"wireconf-child-{uuid.uuid4().hex}"
    monkeypatch.setenv("WIRECONF_CHILD_TOKEN", token)
    monkeypatch.setenv("WIRECONF_CHILD_SETSID", setsid)
    try:
        run = run_corpus(f"--impl={impl}", *only(WIRE))
        assert run.with_outcome("passed") == {WIRE}, run.longreprs
        assert _gone(token) == []
    finally:
        for pid in _alive_with(token):
            os.kill(int(pid), 9)


def _edit_the_corpus(pytester, monkeypatch, runner):
    import shutil

    corpus = pytester.path / "cases"
    shutil.copytree(CASES, corpus)
    edited = corpus / "wire" / "openai.chat" / "messages.yaml"
    monkeypatch.setenv("WIRECONF_EDIT_FILE", str(edited))
    pytester.syspathinsert(REPO)
    result = pytester.runpytest(
        str(corpus), "-p", "no:cacheprovider", f"--impl={SANDBOX}:edits_the_corpus",
        f"--case-runner={runner}", f"--cassettes={REPO / 'cassettes'}", *only(WIRE),
    )  # fmt: skip
    return result, edited


def test_a_corpus_edited_during_the_run_fails_the_run_naming_the_file(pytester, monkeypatch):
    """Where the runtime can write the corpus (the thread runner, in the pytest process): hashed."""
    result, edited = _edit_the_corpus(pytester, monkeypatch, "thread")
    result.assert_outcomes(passed=1)  # the case itself passed: the run as a whole does not
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*wireconf: the corpus changed during the run*", f"  {edited} (changed)", "Restore the corpus*"]
    )


@pytest.mark.skipif(not netns.available()[0], reason=f"no namespace here: {netns.available()[1]}")
def test_the_corpus_is_read_only_for_an_in_process_runtime_in_the_runner_process(pytester, monkeypatch):
    """The forked runner mounts the run's corpora read-only in its own mount namespace (issue 35)."""
    before = (CASES / "wire" / "openai.chat" / "messages.yaml").read_bytes()
    result, edited = _edit_the_corpus(pytester, monkeypatch, "process")
    assert edited.read_bytes() == before
    assert "Read-only file system" in result.stdout.str()
    assert "passed" not in result.parseoutcomes()
    assert "the corpus changed" not in result.stdout.str()


def test_an_adapter_that_replaces_the_judge_cannot_change_its_verdicts_over_exec(run_corpus, markers):
    """The mode for published results (docs/ci.md): the runtime runs in a process of its own and the
    pytest process, which never imports it, judges."""
    import sys as _sys

    run = run_corpus(f"--impl=exec:{PY_SERVE} tests.fakes.forges_verdicts:adapter", *only(WIRE, WIRE_2))
    assert run.with_outcome("failed") == {WIRE, WIRE_2}, run.outcomes
    assert "not-what-any-case-expects" in run.longreprs[WIRE]
    assert "tests.fakes.forges_verdicts" not in _sys.modules  # imported by the runtime's process only


def test_a_runtime_that_writes_to_the_runners_pipe_runs_nothing_in_the_pytest_process(
    run_corpus, markers, monkeypatch
):
    """The pytest process used to unpickle whatever the runner process sent: a runtime there could
    run code outside its sandbox. Now the message is not read as anything but a result: an error."""
    marker = markers / "ran-in-the-pytest-process"
    monkeypatch.setenv("WIRECONF_PIPE_MARKER", str(marker))
    run = run_corpus(f"--impl={SANDBOX}:writes_to_the_pipe", *only(WIRE, WIRE_2))
    assert not marker.exists()
    assert run.outcomes == {WIRE: "error", WIRE_2: "error"}, run.longreprs
    assert "the runner process sent something that is not a case's result" in run.longreprs[WIRE]
