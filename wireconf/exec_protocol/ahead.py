"""Calls sent ahead (protocol 3's ``ahead``), and the routing of the runtime's messages by call id.

The harness writes the next cases' calls while the runtime works on one; each case then takes the
answers of its own calls. Every message the runtime sends names its call, and a fault costs the case
whose call it names: a message naming a call already answered (a stray ``yield``, a second ``result``)
is that call's case's error while its case runs or waits for the runtime's next message (``claimed``),
and a *late fault* once that case was reported (``late_faults``: the run fails, naming it), never the
error of the case that happens to be running.
"""

from __future__ import annotations

import collections
import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from wireconf.core.case_abort import CaseAborted
from wireconf.exec_protocol.calls import http_answer
from wireconf.exec_protocol.messages import ProtocolError, decode, encode
from wireconf.exec_protocol.process import Process, Silent
from wireconf.exec_protocol.routes import Routes, Sent
from wireconf.exec_protocol.supervisor import Supervisor

AHEAD_WRITE_LIMIT = 5.0
"""Seconds a call sent ahead may take to write (it is only written when the pipe has room for it)."""


class RuntimeFault(CaseAborted):
    """The runtime sent a message naming one of this case's calls after answering it."""


class Ahead:
    """The calls of the cases sent ahead, by case, and what the runtime sent for them."""

    def __init__(self, supervisor: Supervisor, enabled: bool) -> None:
        self.supervisor = supervisor
        self.enabled = enabled
        self._last_id = 0
        self.capturing: list[Sent] | None = None
        """While ``send_ahead`` runs its case's call: the calls it makes, built, not sent."""
        self._sent: dict[str, list[Sent]] = {}
        """The calls of the cases sent ahead, by case, in the order they run."""
        self._claims: collections.deque[Sent] = collections.deque()
        self.case: str | None = None
        """The case running in ``claimed``."""
        self.late_faults: list[str] = []
        """Messages naming a call whose case was already reported: each says which case and what."""

    def next_id(self) -> int:
        self._last_id += 1
        return self._last_id

    # -- sending ahead ---------------------------------------------------------------------------------

    def send_ahead(self, case: str, call: Callable[[Any], object], adapter: object) -> None:
        """Build the calls ``case``'s run will make (``call`` runs against ``adapter`` in capture mode:
        each method builds its messages and answers nothing) and write them when there is room."""
        if not self.enabled or case in self._sent:
            return
        captured: list[Sent] = []
        self.capturing = captured
        try:
            call(adapter)
        except Exception:  # what the call makes of answers it did not get is no verdict
            pass
        finally:
            self.capturing = None
        for entry in captured:
            entry.case = case
        self._sent[case] = captured
        self.flush()

    def has_sent_ahead(self, case: str) -> bool:
        return case in self._sent

    def keep_ahead(self, cases: Iterable[str]) -> None:
        """Give up the calls sent ahead for cases other than ``cases`` (a case pytest skipped after all,
        a changed order): their answers are read and dropped as they come."""
        keep = set(cases)
        for case in [c for c in self._sent if c not in keep]:
            for entry in self._sent.pop(case):
                self._orphan(entry)

    @contextlib.contextmanager
    def claimed(self, case: str) -> Iterator[None]:
        """Within the block (the case's run), each call the case makes takes the answer of the one sent
        ahead for it, in order; the ones it did not make are given up. At its end, the runtime's next
        message is read when calls written after this case's will bring one: a message naming this
        case's calls then is this case's error (``RuntimeFault``), not the next case's."""
        self._claims = collections.deque(self._sent.pop(case, ()))
        self.case = case
        try:
            yield
            self._settle(case)
        finally:
            for entry in self._claims:
                self._orphan(entry)
            self._claims.clear()
            self.case = None

    def flush(self) -> None:
        """Write the calls sent ahead that the running process does not have yet (all of them after a
        restart), in order, while its pipe has room: never a blocking write behind a busy runtime."""
        process = self.supervisor.process
        if process is None or process.warming or self.supervisor.in_flight is not None or not process.alive():
            return
        for entries in self._sent.values():
            for entry in entries:
                if entry.routes is process.routes:
                    continue
                # each line encoded once, under the id it is written with (the next one), to know
                # whether the pipe has room for it and then to write it
                for message in entry.messages:
                    message["id"] = self._last_id + 1
                lines = [encode(message) for message in entry.messages]
                room = process.room()
                if room is not None and sum(len(line.encode("utf-8")) + 1 for line in lines) > room:
                    return
                if not self._write(process, entry, time.monotonic() + AHEAD_WRITE_LIMIT, lines):
                    return

    def _write(self, process: Process, entry: Sent, deadline: float | None, lines: list[str]) -> bool:
        """Write ``entry``'s messages (``lines``, encoded under the id they get) under a new id; a write
        that fails stops the process (its conversation may hold half a line): the calls go again to the
        next one."""
        entry.id, entry.routes = self.next_id(), None
        for message in entry.held:
            message["id"] = entry.id
        if entry.held:
            self.supervisor.hold(process, entry.id, entry.held)
        try:
            for message, line in zip(entry.messages, lines, strict=True):
                assert message["id"] == entry.id, "encoded under another id"
                self.supervisor.send(process, message, deadline, line)
        except (OSError, ValueError, Silent):
            self.supervisor.drop(process)
            return False
        entry.routes = process.routes
        process.routes.ahead[entry.id] = entry
        process.routes.highest = entry.id
        return True

    def write(self, process: Process, entry: Sent) -> None:
        """Write a call now (built now, or sent to a process since stopped), under a new id."""
        entry.id, entry.routes = self.next_id(), process.routes
        process.routes.highest = entry.id
        for message in entry.held:
            message["id"] = entry.id
        if entry.held:
            self.supervisor.hold(process, entry.id, entry.held)
        for message in entry.messages:
            message["id"] = entry.id
            self.supervisor.answer(process, message)

    def _orphan(self, entry: Sent) -> None:
        """Give up a call sent ahead: what comes for it is dropped as it comes, until its answer; when
        its answer came already (read while an earlier call was), it is an answered call of its case."""
        routes = entry.routes
        if routes is None or routes.ahead.pop(entry.id, None) is None:
            return
        early = routes.buffered.pop(entry.id, None) or ()
        if any(message["type"] in ("result", "error") for message in early):
            routes.answered[entry.id] = entry.case
            routes.held.pop(entry.id, None)
            return
        routes.orphans[entry.id] = entry
        if any(message["type"] == "ack" for message in early) and self.supervisor.process is not None:
            process = self.supervisor.process  # it waits for the rest of its stream: given now
            if process.routes is routes:
                self.supervisor.release(process, entry.id, entry.held)

    def claim(self, method: str) -> Sent | None:
        """The call sent ahead that this call of the running case is (the next one of its method)."""
        while self._claims:
            entry = self._claims.popleft()
            if entry.method == method:
                return entry
            self._orphan(entry)
        return None

    # -- routing the runtime's messages ----------------------------------------------------------------

    def reply(self, process: Process, call_id: int) -> dict[str, Any]:
        """The runtime's next message for call ``call_id``. Messages of calls sent after it come first
        when it was written after them: those of a call sent ahead wait for their case (its media
        downloads answered at once), those of a call given up are dropped, those naming
        an answered call are that call's fault; any other is a protocol error, and the process is
        stopped."""
        waiting = process.routes.buffered.get(call_id)
        if waiting:
            return waiting.popleft()
        while True:
            try:
                line = process.receive(self.supervisor.remaining())
            except Silent:
                raise self.supervisor.timed_out(process) from None
            if line is None:
                raise self.supervisor.crashed(process)
            try:
                reply = decode(line)
                self.supervisor.log("runtime", reply)
                if reply.get("id") == call_id:
                    return reply
                self._route(process, reply, line)
            except ProtocolError:
                self.supervisor.drop(process)
                raise

    def _route(self, process: Process, reply: dict[str, Any], line: str) -> None:
        """Deal with a message that names a call other than the one being read."""
        routes, other = process.routes, reply.get("id")
        if not isinstance(other, int) or isinstance(other, bool):
            raise ProtocolError(f"a message without a call id: {line.strip()[:200]}")
        entry = routes.ahead.get(other)
        orphan = routes.orphans.get(other) if entry is None else None
        known = entry or orphan
        if known is not None:
            if reply["type"] == "http":  # a media download: answered now, the runtime waits for it
                head, _ = http_answer(reply.get("request") or {}, known.downloads, None)
                self.supervisor.answer(process, {"type": "response", "id": other, **head})
            elif entry is not None:
                routes.buffered.setdefault(other, collections.deque()).append(reply)
            elif reply["type"] == "next":  # a call given up reads no more of its stream
                self.supervisor.answer(process, {"type": "end", "id": other})
            elif reply["type"] == "ack" and orphan is not None:  # nor is it judged: the rest goes
                self.supervisor.release(process, other, orphan.held)
            elif reply["type"] in ("result", "error") and orphan is not None:
                del routes.orphans[other]
                routes.held.pop(other, None)
                routes.answered[other] = orphan.case
            return
        if other in routes.answered and routes.answered[other] not in (None, self.case):
            case = routes.answered[other]
            self.late_faults.append(
                f"{case}: the runtime sent a {reply['type']!r} message for call {other} after that "
                f"call was answered and its case reported: {line.strip()[:200]}"
            )
            return
        raise ProtocolError(_stray(other, reply, line, routes))

    def _settle(self, case: str) -> None:
        """Read the runtime's next message when calls written to it after this case's will bring one:
        it is then either theirs (kept for them) or a fault of this case."""
        process = self.supervisor.process
        while process is not None and (process.routes.ahead or process.routes.orphans):
            routes = process.routes
            try:
                line = process.receive(self.supervisor.remaining())
            except Silent:
                return  # nothing came in this case's time: a fault later is a late one
            if line is None:
                process.lines.put(None)  # the next call finds the process gone
                return
            try:
                reply = decode(line)
            except ProtocolError as exc:
                self.supervisor.drop(process)
                raise RuntimeFault(f"the runtime sent a message that is not one: {exc}") from None
            self.supervisor.log("runtime", reply)
            other = reply.get("id")
            if isinstance(other, int) and routes.answered.get(other, "") == case:
                raise RuntimeFault(_stray(other, reply, line, routes))
            try:
                self._route(process, reply, line)
            except ProtocolError as exc:
                self.supervisor.drop(process)
                raise RuntimeFault(str(exc)) from None
            if isinstance(other, int) and other in routes.ahead and reply["type"] != "http":
                return  # the next call's first message: this case's conversation is over

    def clean(self, process: Process) -> list[str]:
        """Lines the process wrote after its last answer when no call was sent ahead; each one naming an
        answered call of a reported case is kept as a late fault."""
        stray = process.pending()
        for line in stray:
            try:
                other = decode(line).get("id")
            except ProtocolError:
                continue
            case = process.routes.answered.get(other) if isinstance(other, int) else None
            if case is not None:
                self.late_faults.append(
                    f"{case}: the runtime wrote a message for call {other} after answering it: "
                    f"{line.strip()[:200]}"
                )
        return stray


def _stray(other: int, reply: dict[str, Any], line: str, routes: Routes) -> str:
    """What is wrong with a message naming call ``other`` when another call, or none, was read."""
    text = line.strip()[:200]
    if other in routes.answered:
        return f"the runtime sent a {reply['type']!r} message for call {other} after answering it: {text}"
    if other > routes.highest or other < 1:
        return f"the runtime sent a message for call {other}, which was never sent to it: {text}"
    return f"unexpected message for call {other}: {text}"
