"""One call's conversation with the runtime: its messages written (unless sent ahead), then the
runtime's read until its answer: stream events served on ``next``, HTTP requests answered, yields
passed on as they come, the result returned or the error raised as the runtime's SDK raised it."""

from __future__ import annotations

import logging
from collections.abc import Generator, Iterator
from typing import Any

from wireconf.adapter_contract import Inexpressible
from wireconf.core.error_categories import CATEGORIES
from wireconf.core.errors import NotJudged
from wireconf.exec_protocol.ahead import Ahead
from wireconf.exec_protocol.calls import event_json, http_answer, sdk_json_of, written_by_harness
from wireconf.exec_protocol.http_bridge import HttpBridge
from wireconf.exec_protocol.messages import ProtocolError, remote_exception
from wireconf.exec_protocol.process import Process
from wireconf.exec_protocol.routes import Sent
from wireconf.exec_protocol.supervisor import Supervisor

_LOG = logging.getLogger(__name__)

UNJUDGED_READING = (
    "the runtime speaks protocol 3 with `pipeline`: it is sent a stream's events unasked and reports its "
    "own reading (`read`), which the harness cannot check, so incrementality is not judged on its word; "
    "speak protocol 4 (a stream's last event waits for `ack`) to have it judged"
)

STREAMED = object()
"""What a call returns when the runtime's result was a stream, whose items were its yields."""


def converse(
    supervisor: Supervisor,
    ahead: Ahead,
    method: str,
    api: str | None,
    entry: Sent,
    events: Iterator[Any] | None,
    http: HttpBridge | None,
    categories: bool,
) -> Generator[Any, None, Any]:
    """Run one call (``entry``, already written when it was sent ahead to this process): yields the
    runtime's items, returns its result (``STREAMED`` for a stream), raises its error."""
    process = supervisor.ensure_running()
    if not (process.routes.ahead or process.routes.orphans) and (stray := ahead.clean(process)):
        process = _restarted(supervisor, process, stray)
    supervisor.in_flight = process
    finished = False  # the runtime answered (result or error): the process is free for the next call
    failed: Exception | None = None  # the stream the harness reads for the runtime raised
    try:
        if entry.routes is not process.routes:  # built now, or sent to a process since stopped
            ahead.write(process, entry)
        process.routes.ahead.pop(entry.id, None)
        call_id, probe, marks = entry.id, entry.probe, entry.marks
        held = list(entry.held)  # protocol 4: sent on the runtime's `ack`
        released = entry.window if held else len(marks) - 1  # how far the harness let the stream go
        while True:
            reply = ahead.reply(process, call_id)
            kind_of = reply["type"]
            if kind_of in ("result", "error"):
                finished = True
                process.routes.answered[call_id] = entry.case if entry.case is not None else ahead.case
                process.routes.held.pop(call_id, None)  # a stream not read to its end: never sent
                if failed is not None:  # the stream's own error, as the runtime's SDK would have raised it
                    raise failed
            if kind_of == "result":
                return STREAMED if reply.get("streamed") else reply.get("value")
            if kind_of == "error":
                error = error_of(reply, categories)
                if error.get("inexpressible") is True:  # the adapter: this input has no form there
                    raise Inexpressible(str(error.get("message") or "no form in this runtime"))
                if error.get("origin") == "input":  # as the harness's own SDK refusing it in-process
                    raise NotJudged(
                        f"the runtime's SDK could not parse the recorded input: {error.get('message')}"
                    )
                raise remote_exception(error)
            if kind_of == "yield":
                read = reply.get("read")
                if probe is not None and marks and entry.held:  # protocol 4: what the harness released
                    probe.read = marks[released]
                elif probe is not None and marks:  # protocol 3: the runtime's own count, unchecked
                    probe.unjudged = UNJUDGED_READING
                    if isinstance(read, int):
                        probe.read = marks[max(0, min(read, len(marks) - 1))]
                if failed is None:  # after the stream failed, the runtime's SDK would have raised
                    yield reply.get("item")
            elif kind_of == "next" and events is not None:
                try:
                    event = next(events)
                except StopIteration:
                    answer: dict[str, Any] = {"type": "end", "id": call_id}
                except Exception as exc:  # the recorded stream fails (an error event): the SDK raised
                    # the runtime is told the stream ended, and its call is read to its end, so that
                    # its process stays in step for the next case; the call raises the SDK's error
                    failed, events = exc, iter(())
                    answer = {"type": "end", "id": call_id}
                else:
                    with written_by_harness(method):
                        written = event_json(event, sdk_json_of(api))
                    answer = {"type": "event", "id": call_id, **written}
                supervisor.answer(process, answer)
            elif kind_of == "ack" and entry.held:  # protocol 4: it read all it was sent
                released = len(marks) - 1
                supervisor.release(process, call_id, held)  # (the reader thread may have sent them)
                held = []
            elif kind_of == "http" and "endpoint" in entry.messages[0]:  # (lane execurl's hunk)
                supervisor.drop(process)
                raise ProtocolError(
                    f"an `http` message during {method}, whose call carries `endpoint`: a runtime that says "
                    "`endpoints` sends its HTTP to the endpoint's URLs, never through the harness"
                )
            elif kind_of == "http":
                head, chunks = http_answer(reply.get("request") or {}, entry.downloads, http)
                if chunks is not None:  # its body is pulled with `next`
                    events = chunks
                supervisor.answer(process, {"type": "response", "id": call_id, **head})
            else:
                supervisor.drop(process)
                raise ProtocolError(f"unexpected {kind_of!r} message during {method}: {str(reply)[:200]}")
    finally:
        # Not finished (abandoned, closed early, crashed): the next call restarts the process.
        if finished and supervisor.in_flight is process:
            supervisor.in_flight = None


def _restarted(supervisor: Supervisor, process: Process, stray: list[str]) -> Process:
    """A fresh process for a call when the last one wrote lines after its last answer (no call was
    sent ahead): that call's fault, never this one's."""
    _LOG.warning(
        "the runtime process (%s) wrote %d line(s) on stdout after its answer to the previous call "
        "(first: %.200s); it was restarted, so that this case starts on a clean conversation "
        "(a runtime's own output goes to stderr)",
        supervisor.command,
        len(stray),
        stray[0].strip(),
    )
    supervisor.drop(process)
    return supervisor.ensure_running()


def error_of(reply: dict[str, Any], categories: bool) -> dict[str, Any]:
    """An error message's ``error``, its ``category`` checked: only after a hello that says ``categories``,
    one of ``wireconf.core.error_categories.CATEGORIES`` or null, ``status`` an HTTP status."""
    error = reply.get("error") or {}
    if "category" not in error and "status" not in error:
        return error
    if not categories:
        raise ProtocolError(
            f"an error's `category` needs a hello that says `categories: true` (protocol 2): {reply}"
        )
    category, status = error.get("category"), error.get("status")
    if category is not None and category not in CATEGORIES:
        raise ProtocolError(f"unknown error category {category!r} (known: {', '.join(CATEGORIES)}): {reply}")
    if status is not None and (type(status) is not int or not 100 <= status <= 599):
        raise ProtocolError(f"an error's `status` is an HTTP status (100-599): {reply}")
    return error
