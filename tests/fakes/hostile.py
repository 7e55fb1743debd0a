"""Runtimes that misbehave the way a hostile or clumsy one would, each once per run.

Each misbehaviour happens on the first call of its method only: a marker file in
``$WIRECONF_HOSTILE_DIR`` (created before misbehaving) says it has happened, so that a runner process
started afresh afterwards does not repeat it and the other cases can be judged. What happens *after*
the misbehaviour (work that was not stopped) leaves a second marker, ``<name>-woke``, which tests read
as evidence that the harness let the work go on.
"""

from __future__ import annotations

import ctypes
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from tests.fakes.base import ChatFake

HANG_SECONDS = 20
"""Long enough that a harness waiting for the hang to end is plainly not honouring its time limit."""


def _dir() -> Path:
    return Path(os.environ["WIRECONF_HOSTILE_DIR"])


def first_time(name: str) -> bool:
    """True exactly once per run (per marker directory): the marker is created before misbehaving."""
    try:
        (_dir() / name).touch(exist_ok=False)
    except FileExistsError:
        return False
    return True


def woke(name: str) -> None:
    (_dir() / f"{name}-woke").touch()


def hold_the_gil(seconds: float) -> None:
    """C code that never releases the GIL: libc's sleep called through ``ctypes.PyDLL``."""
    ctypes.PyDLL(None).sleep(int(seconds))


class GilHang(ChatFake):
    """Its first stream call sleeps in C code that holds the GIL."""

    name = "gil-hang"

    def process_stream(self, api, agent, events):
        if first_time("gil"):
            hold_the_gil(HANG_SECONDS)
            woke("gil")
        return super().process_stream(api, agent, events)


class _BlockingMapping(Mapping):
    """A result whose iteration blocks (releasing the GIL), then yields the right content."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __len__(self) -> int:
        return len(self.data)

    def __iter__(self) -> Iterator[str]:
        threading.Event().wait(HANG_SECONDS)
        woke("mapping")
        return iter(self.data)


class BlockingMapping(ChatFake):
    """Its first process call returns the right result inside a Mapping whose iteration blocks."""

    name = "blocking-mapping"

    def process(self, api, agent, response):
        result = super().process(api, agent, response)
        if isinstance(result, dict) and first_time("mapping"):
            return _BlockingMapping(result)
        return result


class Exits(ChatFake):
    """Its first wire call ends its own process, as a runtime calling ``os._exit`` would."""

    name = "exits"

    def build_request(self, api, agent, messages):
        if first_time("exit"):
            os._exit(3)
        return super().build_request(api, agent, messages)


class SelfReference(ChatFake):
    """Returns a mapping that contains itself."""

    name = "self-reference"

    def process(self, api, agent, response):
        result: dict[str, Any] = {"content": "loop"}
        result["again"] = result
        return result


class HugeText(ChatFake):
    """Returns a text of 20,000 lines, every one of them different from the expectation."""

    name = "huge-text"

    def process(self, api, agent, response):
        return "\n".join(f"line {i} of a runaway answer" for i in range(20000))


def write_into_cassettes() -> None:
    """Write a file into the cassettes folder named by ``$WIRECONF_HOSTILE_CASSETTES``."""
    target = Path(os.environ["WIRECONF_HOSTILE_CASSETTES"]) / "openai" / "written-by-runtime.yaml"
    target.write_text("interactions: []\n")


class WritesCassettes(ChatFake):
    """Writes into the cassettes folder during its process calls."""

    name = "writes-cassettes"

    def process(self, api, agent, response):
        write_into_cassettes()
        return super().process(api, agent, response)


class WritesCassettesThroughASubprocess(ChatFake):
    """Writes into the cassettes folder from a child process during its process calls: no audit hook of
    the harness sees that write, so the harness cannot say who made it."""

    name = "writes-cassettes-through-a-subprocess"

    def process(self, api, agent, response):
        target = Path(os.environ["WIRECONF_HOSTILE_CASSETTES"]) / "openai" / "written-by-a-subprocess.yaml"
        subprocess.run(["sh", "-c", 'printf "interactions: []\\n" > "$1"', "sh", str(target)], check=True)
        return super().process(api, agent, response)


class WritesCassettesInAStream(ChatFake):
    """Writes into the cassettes folder during its stream calls only (its other calls are the
    reference's), so that a case judged before a stream case must not be blamed for the write."""

    name = "writes-cassettes-in-a-stream"

    def process_stream(self, api, agent, events):
        write_into_cassettes()
        return super().process_stream(api, agent, events)


class NotesRequests(ChatFake):
    """Appends a line to ``$WIRECONF_HOSTILE_DIR/requests`` for each wire call, then answers as the
    reference does: evidence of which cases' adapter calls happened."""

    name = "notes-requests"

    def build_request(self, api, agent, messages):
        with (_dir() / "requests").open("a") as notes:
            notes.write(f"{agent.get('model', {}).get('options', {})}\n")
        return super().build_request(api, agent, messages)


def _listener() -> tuple[str, int]:
    host, _, port = os.environ["WIRECONF_HOSTILE_LISTENER"].rpartition(":")
    return host, int(port)


def escape_attempts() -> None:
    """Every way out of the process the in-process guard used to miss, each error swallowed."""
    host, port = _listener()
    url = f"http://{host}:{port}/curl"
    subprocess.run(["curl", "-s", "-m", "3", url], capture_output=True, check=False)
    import _socket

    raw = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    raw.settimeout(3)
    try:
        raw.connect((host, port))
        raw.sendall(b"GET /raw-socket HTTP/1.0\r\n\r\n")
    except OSError:
        pass
    finally:
        raw.close()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        udp.sendto(b"udp", (host, port))
    except OSError:
        pass
    finally:
        udp.close()


class Escapes(ChatFake):
    """Reaches for the network by a subprocess, the raw ``_socket`` module and UDP, swallowing every
    error, and returns the right request body."""

    name = "escapes"

    def build_request(self, api, agent, messages):
        escape_attempts()
        return super().build_request(api, agent, messages)


class RetriesForever(ChatFake):
    """Its first e2e call never returns: it keeps trying to reach the provider on its own, and the
    listener named by ``$WIRECONF_HOSTILE_LISTENER``, every 20 ms."""

    name = "retries-forever"

    def execute(self, api, agent, messages, client):
        if first_time("retry"):
            host, port = _listener()
            while True:
                for target in (("api.openai.com", 443), (host, port)):
                    try:
                        socket.create_connection(target, timeout=1).close()
                        woke("retry")
                    except OSError:
                        pass
                time.sleep(0.02)
        return super().execute(api, agent, messages, client)


gil_hang = GilHang()
blocking_mapping = BlockingMapping()
exits = Exits()
self_reference = SelfReference()
huge_text = HugeText()
writes_cassettes = WritesCassettes()
writes_cassettes_in_a_stream = WritesCassettesInAStream()
writes_cassettes_through_a_subprocess = WritesCassettesThroughASubprocess()
notes_requests = NotesRequests()
escapes = Escapes()
retries_forever = RetriesForever()


class AllThree(GilHang, BlockingMapping, Exits):
    """The GIL hang, the blocking Mapping and the process exit, each once, in one runtime."""

    name = "all-three"


all_three = AllThree()
