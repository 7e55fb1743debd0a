"""A runtime that hangs, crashes, escapes to the network or returns what is not data costs one case,
named for what it did; the time limit holds whatever the runtime does, and nothing it leaves running
reaches a later case."""

from __future__ import annotations

import re
import shlex
import socket
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from tests.conftest import CASES, REPO

HOSTILE = "tests.fakes.hostile"
PY_SERVE = f"{shlex.quote(sys.executable)} -m harness.exec_protocol.serve"

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

    from harness.pytest_plugin import runner

    prepare = runner.prepare_case

    def slow(*args):
        time.sleep(seconds)
        return prepare(*args)

    monkeypatch.setattr(runner, "prepare_case", slow)


def test_the_preparation_has_a_budget_of_its_own_apart_from_the_case_timeout(run_corpus, monkeypatch):
    """--case-timeout is the runtime's: a preparation longer than it (within its own budget) costs the
    case nothing, since the time limit starts when the runner process marks the adapter call."""
    _slow_preparation(monkeypatch, 1.5)
    run = run_corpus("--case-runner=process", "--case-timeout=0.5", *only(PROCESS, WIRE))
    assert run.with_outcome("passed") == {PROCESS, WIRE}


def test_a_preparation_over_its_budget_is_stopped_and_said_to_be_the_harnesss(run_corpus, monkeypatch):
    from harness.pytest_plugin import runner

    monkeypatch.setattr(runner, "PREPARE_LIMIT", 1.0)
    _slow_preparation(monkeypatch, 60)
    run = run_corpus("--case-runner=process", "--case-timeout=30", *only(WIRE))
    assert run.with_outcome("error") == {WIRE}
    text = run.longreprs[WIRE]
    assert "preparing the case's input" in text and re.search(r"did not finish within 1 s", text), text


def test_an_exec_runtime_that_hangs_on_restart_costs_its_time_limit(run_corpus, markers):
    run = run_corpus(
        f"--impl=exec:{PY_SERVE} tests.fakes.exec_hostile:adapter",
        "--case-timeout=2",
        *only(WIRE, WIRE_2, WIRE_3),
    )
    assert run.outcomes == {WIRE: "error", WIRE_2: "error", WIRE_3: "passed"}
    assert "exited with status 3 while handling this case" in run.longreprs[WIRE]
    assert re.search(
        r"did not say hello within [\d.]+ s of its restart \(--case-timeout 2 s", run.longreprs[WIRE_2]
    )


def test_an_exec_runtime_that_never_restarts_errors_the_rest_at_once(run_corpus, markers, monkeypatch):
    monkeypatch.setenv("WIRECONF_HOSTILE_RESTART", "always")
    run = run_corpus(
        f"--impl=exec:{PY_SERVE} tests.fakes.exec_hostile:adapter",
        "--case-timeout=2",
        *only(WIRE, WIRE_2, WIRE_3, WIRE_4),
    )
    assert run.with_outcome("error") == {WIRE, WIRE_2, WIRE_3, WIRE_4}
    assert "did not say hello within" in run.longreprs[WIRE_2]
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
    assert run.with_outcome("failed") == {WIRE}
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
