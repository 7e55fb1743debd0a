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
