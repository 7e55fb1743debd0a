"""The launcher's options for the emulator's listener (``netns.with_hand_over``, ``_parse``) and the
reserved port the harness's emulator and every runtime's namespace share (``netns.emulator_port``)."""

from __future__ import annotations

import pytest

from wireconf.cassettes import netns

ISOLATED = netns.launcher_command(["node", "server.mjs"], 1, ["/corpus"])


def test_the_hand_over_options_go_before_the_command_of_an_isolating_launcher():
    argv = netns.with_hand_over(ISOLATED, 4242, 7)
    split = argv.index("--")
    assert argv[split - 2 : split] == ["--emulator-port=4242", "--hand-over=7"]
    assert argv[split + 1 :] == ["node", "server.mjs"]
    assert netns._parse(argv[4:]) == (1, ["/corpus"], True, (4242, 7), ["node", "server.mjs"])


def test_a_launcher_without_isolation_hands_nothing_over():
    shared = netns.launcher_command(["node", "server.mjs"], 1, isolate=False)
    assert not netns.isolating(shared) and netns.isolating(ISOLATED)
    assert netns.with_hand_over(shared, 4242, 7) == shared
    assert not netns.isolating(["node", "--", "server.mjs"])


@pytest.mark.parametrize(
    "options", [["--emulator-port=4242"], ["--hand-over=7"], ["--emulator-port=x", "--hand-over=7"]]
)
def test_a_port_without_its_channel_is_a_usage_error(options):
    with pytest.raises(SystemExit, match=r"usage: netns\.py"):
        netns._parse([*options, "--", "node"])


def test_the_emulator_adopts_the_port_runtimes_were_started_with(monkeypatch):
    monkeypatch.setattr(netns, "_RESERVED", None)
    monkeypatch.setattr(netns, "_PORT", None)
    port = netns.emulator_port()  # a runtime started first
    assert netns.emulator_port() == port
    with netns.emulator_socket() as adopted:
        assert adopted.getsockname() == ("127.0.0.1", port)
        assert netns.emulator_port() == port  # and the runtimes started after it


def test_a_dead_runtimes_listener_is_served_no_more(monkeypatch):
    """A runtime's listener is served from its hand-over until the runtime exits (a restart hands a new
    one over): then its emulator side is stopped and the socket closed, not kept for a dead namespace."""
    import socket
    import subprocess
    import sys
    import threading
    import time

    from wireconf.exec_protocol import launch

    for name, fresh in (("_SERVE", []), ("_WAITING", []), ("_SERVED", {}), ("_HAND_OVERS", {})):
        monkeypatch.setattr(launch, name, fresh)
    stopped = threading.Event()
    served: list[tuple[socket.socket, socket.socket | None]] = []

    def serve(listener: socket.socket, diag: socket.socket | None):
        served.append((listener, diag))
        return stopped.set

    launch.serve_listeners(serve)
    runtime = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    ours, theirs = socket.socketpair()
    # the launcher sends its namespace's socket diagnostics with the listener (the stream gate's)
    with socket.create_server(("127.0.0.1", 0)) as listening, theirs, socket.socketpair()[0] as diag:
        hand_over = launch.HandOver(ours, runtime.pid)
        socket.send_fds(theirs, [b"listening"], [listening.fileno(), diag.fileno()])
        assert hand_over.reaches_emulator(10) == ""
    assert served == [(hand_over.listener, hand_over.diag)] and hand_over.diag is not None
    assert not stopped.wait(0.3)  # served while the runtime lives
    runtime.communicate(b"")  # it exits
    assert stopped.wait(10)
    closed = time.monotonic() + 10  # closed right after serving stops, on the hand-over's thread
    while hand_over.diag.fileno() != -1 and time.monotonic() < closed:
        time.sleep(0.01)
    assert hand_over.listener.fileno() == -1 and hand_over.diag.fileno() == -1
    assert runtime.pid not in launch._HAND_OVERS
