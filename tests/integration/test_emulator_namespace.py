"""The emulator reached from a network namespace of its own: a process that unshares its network (as the
forked runner and every ``exec:`` runtime do) brings up its loopback, listens there at the emulator's
port and hands the socket to the harness's process, which serves it (``Emulator.serve_listener``).
Inside, the case's site answers at the same URL as outside, and nothing else can be reached."""

from __future__ import annotations

import json
import os
import socket

import pytest

from tests.conftest import REPO
from wireconf.cassettes import netns
from wireconf.cassettes.store import read_cassette
from wireconf.emulator.answers import RecordedAnswers
from wireconf.emulator.server import Emulator

CHAT = "openai/chat__01__opentelemetry-python-contrib__test_chat_completion_with_content_i0"

pytestmark = pytest.mark.skipif(
    not netns.available()[0], reason=f"no network namespace here: {netns.available()[1]}"
)


def _inside(channel: socket.socket, port: int) -> None:
    """The namespaced process: its own network, loopback up, no capability left; listen at ``port``,
    hand the listener over, then call the site's URL it is sent and try to leave."""
    netns._unshare(netns.CLONE_NEWNET)
    netns.loopback_up()
    netns.drop_capabilities()
    listener = socket.create_server(("127.0.0.1", port))
    socket.send_fds(channel, [b"listening"], [listener.fileno()])
    url = channel.recv(4096).decode()
    import httpx

    answered = httpx.post(url, json={"model": "x", "messages": []})
    report = {"status": answered.status_code, "body": answered.text}
    try:
        socket.create_connection(("1.1.1.1", 80), timeout=2).close()
        report["outside"] = "connected"
    except OSError as exc:
        report["outside"] = exc.strerror or str(exc)
    channel.sendall(json.dumps(report).encode())


def test_a_site_answers_inside_a_network_namespace_and_nothing_else_does():
    recorded = read_cassette(REPO / "cassettes" / f"{CHAT}.yaml", CHAT).interactions[0].response
    with Emulator() as emulator:
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # never return into pytest from the child
            code = 1
            try:
                ours.close()
                _inside(theirs, emulator.address[1])
                code = 0
            finally:
                os._exit(code)
        theirs.close()
        with ours:
            _, fds, _, _ = socket.recv_fds(ours, 64, 1)
            emulator.serve_listener(socket.socket(fileno=fds[0]))
            site = emulator.open_site("openai.chat", RecordedAnswers("openai.chat", [recorded]))
            ours.sendall((site.endpoint().api_base_url + "/chat/completions").encode())
            report = json.loads(ours.recv(1 << 20))
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert (report["status"], report["body"]) == (200, recorded.body.decode())
    assert report["outside"] == "Network is unreachable"
    [request] = site.captured
    assert request.url == "https://api.openai.com/v1/chat/completions"


def test_a_listener_elsewhere_than_the_emulators_address_is_refused():
    from wireconf.emulator.routes import EmulatorError

    with (
        Emulator() as emulator,
        socket.create_server(("127.0.0.1", 0)) as other,
        pytest.raises(EmulatorError, match="cannot serve this emulator's sites"),
    ):
        emulator.serve_listener(other)
