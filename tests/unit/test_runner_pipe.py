"""The pytest process's end of the forked runner's pipe (``runners/pipe.py``): messages framed as
``multiprocessing`` frames them, several taken by one read, only results built from what a runtime
sharing the runner could write."""

from __future__ import annotations

import os
import pickle
import threading
from multiprocessing.connection import Pipe

import pytest

from wireconf.differences import Difference
from wireconf.pytest_plugin.case_run import CaseResult
from wireconf.pytest_plugin.runners.pipe import Results, send


@pytest.fixture
def pipe():
    ours, theirs = Pipe(duplex=False)
    yield Results(ours.fileno()), theirs
    ours.close()
    theirs.close()


def test_the_messages_a_connection_sends_come_out_in_order_as_results(pipe):
    results, runner = pipe
    failed = CaseResult(
        "judged", lines=["differs", Difference("request", "$.model", "value", "'a' != 'b'", "'b'")]
    )
    assert not results.ready(0)
    runner.send(("hello", "a namespace"))
    runner.send(("recorded", "cassettes/x.yaml"))
    runner.send(("done", 1, failed))
    send(runner, ("done", 2, CaseResult("judged")))  # as the runner process sends: pickle.dumps, same frame
    assert results.ready(0)
    assert results.receive() == ("hello", "a namespace")
    assert results.receive() == ("recorded", "cassettes/x.yaml")
    done = results.receive()
    assert done[:2] == ("done", 1) and done[2].lines[1].path == "$.model"
    assert results.ready(0)  # the last one was read with the others: no poll, no read
    assert results.receive()[1] == 2
    assert not results.ready(0)


def test_several_messages_take_one_read(pipe, monkeypatch):
    results, runner = pipe
    for number in range(1, 21):
        runner.send(("done", number, CaseResult("judged")))
    reads = []
    real = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real(fd, n))
    assert [results.receive()[1] for _ in range(20)] == list(range(1, 21))
    assert len(reads) == 1


def test_a_message_split_across_writes_is_read_whole(pipe):
    """A message bigger than the pipe (a case's captured output) comes in several reads: ``receive``
    waits for all of it, as ``Connection.recv_bytes`` does."""
    results, runner = pipe
    data = pickle.dumps(("done", 7, CaseResult("judged", message="x" * 200_000)), pickle.HIGHEST_PROTOCOL)
    framed = len(data).to_bytes(4, "big") + data
    writer = threading.Thread(
        target=lambda: [os.write(runner.fileno(), framed[:3]), os.write(runner.fileno(), framed[3:])]
    )
    writer.start()
    message = results.receive()
    writer.join()
    assert message[1] == 7 and len(message[2].message) == 200_000
    assert not results.ready(0)


def test_what_a_runtime_writes_to_the_pipe_is_never_run(pipe):
    results, runner = pipe

    class Planted:
        def __reduce__(self):
            return (os.system, ("echo planted",))

    runner.send(("done", 1, Planted()))
    with pytest.raises(pickle.UnpicklingError):
        results.receive()


def test_a_negative_size_is_refused_and_a_closed_pipe_is_the_end(pipe):
    results, runner = pipe
    os.write(runner.fileno(), (-5).to_bytes(4, "big", signed=True) + b"xxxxx")
    with pytest.raises(ValueError, match="size -5"):
        results.receive()
    ours, theirs = Pipe(duplex=False)
    theirs.close()
    with pytest.raises(EOFError):
        Results(ours.fileno()).receive()
    ours.close()
