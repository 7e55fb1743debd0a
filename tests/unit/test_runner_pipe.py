"""The pytest process's end of the forked runner's pipe (``runners/pipe.py``): messages framed as
``multiprocessing`` frames them, several taken by one read, only results built from what a runtime
sharing the runner could write."""

from __future__ import annotations

import dataclasses
import os
import pickle
import threading
from multiprocessing.connection import Pipe

import pytest

from wireconf.core.differences import Difference
from wireconf.pytest_plugin.case_run import CaseResult
from wireconf.pytest_plugin.runners import pipe as pipe_module
from wireconf.pytest_plugin.runners.pipe import Results, StrayMessage, check_message, result_data, send


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
    send(runner, ("done", 1, failed))  # as the runner process sends: pickle.dumps, the same frame
    send(runner, ("done", 2, CaseResult("judged")))
    assert results.ready(0)
    assert results.receive() == ("hello", "a namespace")
    assert check_message(results.receive(), 1) == "cassettes/x.yaml"
    done = check_message(results.receive(), 1)
    assert done == failed and isinstance(done, CaseResult)
    assert done.lines[1] == Difference("request", "$.model", "value", "'a' != 'b'", "'b'")
    assert results.ready(0)  # the last one was read with the others: no poll, no read
    assert check_message(results.receive(), 2) == CaseResult("judged")
    assert not results.ready(0)


def test_several_messages_take_one_read(pipe, monkeypatch):
    results, runner = pipe
    for number in range(1, 21):
        send(runner, ("done", number, CaseResult("judged")))
    reads = []
    real = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real(fd, n))
    assert [results.receive()[1] for _ in range(20)] == list(range(1, 21))
    assert len(reads) == 1


def test_a_message_split_across_writes_is_read_whole(pipe):
    """A message bigger than the pipe (a case's captured output) comes in several reads: ``receive``
    waits for all of it, as ``Connection.recv_bytes`` does."""
    results, runner = pipe
    result = result_data(CaseResult("judged", message="x" * 200_000))
    data = pickle.dumps(("done", 7, result), pickle.HIGHEST_PROTOCOL)
    framed = len(data).to_bytes(4, "big") + data
    writer = threading.Thread(
        target=lambda: [os.write(runner.fileno(), framed[:3]), os.write(runner.fileno(), framed[3:])]
    )
    writer.start()
    message = results.receive()
    writer.join()
    assert message[1] == 7 and len(check_message(message, 7).message) == 200_000
    assert not results.ready(0)


def test_what_a_runtime_writes_to_the_pipe_is_never_run(pipe):
    results, runner = pipe

    class Planted:
        def __reduce__(self):
            return (os.system, ("echo planted",))

    runner.send(("done", 1, Planted()))
    with pytest.raises(pickle.UnpicklingError):
        results.receive()


def test_no_class_is_built_from_the_pipe_not_even_a_result(pipe):
    """A result crosses as plain data (``result_data``): the dataclasses themselves, pickled, are
    refused like any other class (the runner never sends them so)."""
    results, runner = pipe
    runner.send(("done", 1, CaseResult("judged")))  # Connection.send: the class by name
    with pytest.raises(pickle.UnpicklingError, match="CaseResult"):
        results.receive()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("status", "passed"),
        ("message", b"bytes"),
        ("lines", ["text", ("request", "$.x")]),
        ("lines", [("request", "$.x", "value", 7, "", None, "", 1, 2, None)]),
        ("lines", [("request", "$.x", "value", "t", "", None, "", 1, 2, ("$.x.type", 3))]),
        ("attempts", [1]),
        ("recorded", "not a list"),
        ("logs", ["not a record"]),
        ("runtime_seconds", "1.0"),
    ],
)
def test_a_result_is_read_only_with_its_fields_types(field, value):
    """What comes back is checked field by field: a runtime writing a tuple of the right length into
    the pipe gets no text where a list is expected, nor a difference with a number for its text."""
    data = list(result_data(CaseResult("judged")))
    data[[f.name for f in dataclasses.fields(CaseResult)].index(field)] = value
    assert check_message(("done", 3, result_data(CaseResult("judged"))), 3) == CaseResult("judged")
    with pytest.raises(StrayMessage, match="a case's result whose"):
        check_message(("done", 3, tuple(data)), 3)
    with pytest.raises(StrayMessage):
        check_message(("done", 3, (*data, "one more")), 3)
    with pytest.raises(StrayMessage):
        check_message(("done", 4, result_data(CaseResult("judged"))), 3)  # another case's


def test_a_result_crosses_in_its_fields_order():
    """``result_of`` unpacks the fields in ``CaseResult``'s order: a field added to the class without
    the pipe knowing it fails here, not as a result read into the wrong fields."""
    assert tuple(f.name for f in dataclasses.fields(CaseResult)) == pipe_module._RESULT_FIELDS
    assert tuple(f.name for f in dataclasses.fields(Difference)) == pipe_module._DIFFERENCE_FIELDS
    difference = Difference("request", "$.n", "value", "1 != 2", "int", "process_async", "  ", 1, [2])
    union = Difference(
        "request", "$.c", "provider-rejects", "$.c: no", constraint=("$.c.type", "'a' is not", "object")
    )
    full = CaseResult(
        "error", "m", ["l", difference, union], ["a"], ["r"], "w", ["c"], ["u"], "o", "e", [{"msg": "x"}], 0.5
    )
    read = check_message(("done", 1, result_data(full)), 1)
    assert isinstance(read, CaseResult) and read == full
    assert (read.lines[1].expected, read.lines[1].actual) == (1, [2])  # not compared by ==
    assert read.lines[2].constraint == (
        "$.c.type",
        "'a' is not",
        "object",
    )  # the report's, for wireconf repro


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
