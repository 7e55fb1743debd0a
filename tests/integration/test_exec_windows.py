"""Incrementality from what the harness released (protocol 4's windows), never from the runtime's
word: a runtime that buffers a stream and claims, at each ``yield``, to have read one event."""

from __future__ import annotations

import json
import shlex
import sys

FORGES = f"{shlex.quote(sys.executable)} -m tests.fakes.forges_read"
INCREMENTAL = "stream.openai.chat"
"""The Chat stream cases, those that say ``incremental: true`` among them."""


def _not_incremental(run) -> set[str]:
    return {case for case, text in run.longreprs.items() if "not incremental" in text}


def test_a_claimed_read_does_not_make_a_buffered_stream_incremental(run_corpus, transcript):
    """Protocol 4: the harness holds each stream's last event until the runtime's ``ack``; a runtime
    that buffers has to ask for it before its first yield, whatever ``read`` it claims."""
    inproc = run_corpus("--impl=tests.fakes.buffers_stream:adapter", "-k", INCREMENTAL)
    run = run_corpus(f"--impl=exec:{FORGES} 4", "-k", INCREMENTAL)
    assert len(_not_incremental(inproc)) >= 3
    assert _not_incremental(run) == _not_incremental(inproc), run.longreprs
    assert run.with_outcome("failed") == inproc.with_outcome("failed")
    messages = [json.loads(line)["message"] for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert any(m["type"] == "ack" for m in messages)
    assert all(m.get("read") == 1 for m in messages if m["type"] == "yield")  # it did claim


def test_a_protocol_3_pipeline_runtime_is_not_judged_on_its_claimed_reading(run_corpus, transcript):
    """Protocol 3 sends a stream unasked: nothing the harness released bounds the runtime's ``read``,
    so its ``incremental`` cases are errors that say so, never passes (nor failures) on its word."""
    inproc = run_corpus("--impl=tests.fakes.buffers_stream:adapter", "-k", INCREMENTAL)
    run = run_corpus(f"--impl=exec:{FORGES} 3", "-k", INCREMENTAL)
    assert not _not_incremental(run)
    assert set(run.with_outcome("error")) >= _not_incremental(inproc), run.longreprs
    assert all("speak protocol 4" in run.longreprs[case] for case in _not_incremental(inproc))
    assert run.with_outcome("passed") <= inproc.with_outcome("passed")


ACKS = """
import json, sys
sys.stdin.readline()  # the harness has registered what it holds
print(json.dumps({"type": "ack", "id": 1}), flush=True)
print(sys.stdin.readline().strip(), flush=True)  # what came after its ack, echoed
"""


def test_the_rest_of_a_window_goes_as_the_ack_comes_not_in_the_case_s_turn(tmp_path):
    """A runtime that acks a call sent ahead gets the held events at once, from the thread that reads
    its stdout, while the harness is still on an earlier case (it reads the ack in its turn and
    counts what it had released then): here the harness reads nothing before the runtime's echo."""
    from wireconf.exec_protocol.messages import encode
    from wireconf.exec_protocol.process import Process

    script = tmp_path / "acks.py"
    script.write_text(ACKS, encoding="utf-8")
    end = encode({"type": "end", "id": 1})
    process = Process([sys.executable, str(script)], None)
    try:
        process.routes.held[1] = [end]
        process.send(encode({"type": "stop"}))
        assert json.loads(process.receive(timeout=60) or "")["type"] == "ack"
        assert (process.receive(timeout=60) or "").strip() == end
        assert not process.routes.held  # written once: the harness's own release finds nothing left
    finally:
        process.kill()
