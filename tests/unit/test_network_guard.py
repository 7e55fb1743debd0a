"""The network guard: armed, nothing resolves or connects; the harness's own recording thread may."""

from __future__ import annotations

import socket
import threading

import pytest

from wireconf.cassettes.network_guard import GUARD, NetworkBlocked


def test_armed_blocks_resolving_and_connecting_and_remembers_the_host():
    with GUARD.armed() as attempts:
        with pytest.raises(NetworkBlocked, match=r"resolve api\.openai\.com:443"):
            socket.getaddrinfo("api.openai.com", 443)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            with pytest.raises(NetworkBlocked, match=r"connect 127\.0\.0\.1:9"):
                sock.connect(("127.0.0.1", 9))
            with pytest.raises(NetworkBlocked):
                sock.connect_ex(("127.0.0.1", 9))
        finally:
            sock.close()
    assert [(a.action, a.host, a.port) for a in attempts] == [
        ("resolve", "api.openai.com", 443),
        ("connect", "127.0.0.1", 9),
        ("connect", "127.0.0.1", 9),
    ]


def test_disarmed_the_socket_module_is_itself_again():
    real = socket.getaddrinfo
    with GUARD.armed():
        assert socket.getaddrinfo is not real
    assert socket.getaddrinfo is real
    assert socket.getaddrinfo("127.0.0.1", 80)


def test_other_threads_are_blocked_too_and_allowed_lets_one_thread_through():
    errors = []

    def elsewhere():
        try:
            socket.getaddrinfo("example.com", 80)
        except NetworkBlocked as exc:
            errors.append(exc)

    with GUARD.armed() as attempts:
        thread = threading.Thread(target=elsewhere, name="runtime-thread")
        thread.start()
        thread.join()
        with GUARD.allowed():
            assert socket.getaddrinfo("127.0.0.1", 80)
    assert len(errors) == 1 and [a.thread for a in attempts] == ["runtime-thread"]


def test_unix_sockets_are_not_network():
    if not hasattr(socket, "AF_UNIX"):
        pytest.skip("no unix sockets here")
    left, right = socket.socketpair(socket.AF_UNIX)
    with GUARD.armed() as attempts, left, right:
        sock = socket.socket(socket.AF_UNIX)
        with pytest.raises(OSError) as info:
            sock.connect("/nonexistent/wireconf.sock")
        sock.close()
        assert not isinstance(info.value, NetworkBlocked)
    assert attempts == []
