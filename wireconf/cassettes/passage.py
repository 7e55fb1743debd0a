"""Record mode's one way out of the case runner's network namespace: the pytest process forwards.

The case-runner process has no network and none of the capabilities that would let it re-enter the
host's (``wireconf.cassettes.netns``); a runtime's code runs there. When a case records, the harness's
recording transport (``wireconf.sdk.cassette_transport``) hands each request to the pytest process
over a socket pair made before the fork, and the pytest process sends it with its own HTTP client and
returns the answer whole. A runtime can write to that socket too, so the pytest process trusts nothing
it reads there: messages are JSON (never pickles), and a request leaves only for a provider's origin
(``wireconf.cassettes.recording.allowed_origins``: the providers' hosts and the base URLs the user set);
anything else is answered with a refusal and never sent.

A request that names its provider (``Passage.forward(..., provider=)``: the emulator's recording proxy,
``wireconf.emulator.recording``) comes from a runtime that holds only a placeholder: the pytest process
drops every credential it carries and adds the provider's real ones (``Provider.authorised``), and
sends it only to that provider's own origins. The keys stay in the pytest process.

Framing: a 4-byte big-endian length, then a JSON object; bodies travel base64-encoded.
"""

from __future__ import annotations

import base64
import contextlib
import json
import socket
import struct
import threading
from collections.abc import Mapping
from typing import Any

from wireconf.cassettes.recording import allowed_origins, origin_of
from wireconf.core.errors import NotJudged, WireconfError
from wireconf.providers.registry import PROVIDERS

_LENGTH = struct.Struct(">I")
MAX_MESSAGE = 1 << 30
"""A message longer than this ends the passage (a runtime writing garbage to the socket)."""


class PassageRefused(NotJudged, ConnectionError):
    """The pytest process did not send a request (another origin, a broken message). The runtime's SDK
    sees a connection error; surfacing from its call, the case is an error (a network attempt is no
    verdict)."""


def _send(sock: socket.socket, message: Mapping[str, Any]) -> None:
    data = json.dumps(message).encode()
    sock.sendall(_LENGTH.pack(len(data)) + data)


class PassageClosed(WireconfError, EOFError):
    """The passage to the pytest process ended, or sent what is not one of its messages: an end of
    file to the readers that wait for one."""


def _receive_exactly(sock: socket.socket, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise PassageClosed("the passage was closed")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive(sock: socket.socket) -> dict[str, Any]:
    (size,) = _LENGTH.unpack(_receive_exactly(sock, _LENGTH.size))
    if size > MAX_MESSAGE:
        raise PassageClosed(f"a passage message of {size} bytes")
    message = json.loads(_receive_exactly(sock, size))
    if not isinstance(message, dict):
        raise PassageClosed("a passage message that is not an object")
    return message


class Passage:
    """The runner's end: one request at a time, answered by the pytest process."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._lock = threading.Lock()

    def forward(
        self,
        method: str,
        url: str,
        headers: list[tuple[str, str]],
        body: bytes,
        provider: str | None = None,
    ) -> tuple[int, str, list[tuple[str, str]], bytes]:
        """``(status, reason, headers, body)`` of the provider's answer; raises ``PassageRefused``.
        ``provider``: the pytest process puts that provider's credentials in place of the request's."""
        request = {
            "method": method,
            "url": url,
            "headers": [list(pair) for pair in headers],
            "body": base64.b64encode(body).decode("ascii"),
        }
        if provider is not None:
            request["provider"] = provider
        with self._lock:
            try:
                _send(self._sock, request)
                answer = _receive(self._sock)
            except (OSError, EOFError, ValueError) as exc:
                raise PassageRefused(f"wireconf: the recording passage failed ({exc})") from None
        if "refused" in answer:
            raise PassageRefused(str(answer["refused"]))
        return (
            int(answer["status"]),
            str(answer["reason"]),
            [(str(k), str(v)) for k, v in answer["headers"]],
            base64.b64decode(answer["body"]),
        )


def _origins(environ: Mapping[str, str]) -> frozenset[tuple[str, str, int]]:
    return frozenset(origin for name in PROVIDERS for origin in allowed_origins(name, environ))


def _answer(
    client: Any,
    http: Any,
    request: dict[str, Any],
    origins: frozenset[Any],
    environ: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    url = str(request.get("url"))
    if origin_of(url) not in origins:
        return {"refused": f"wireconf record mode: {url} is not a provider's origin; nothing was sent"}
    try:
        headers = [(str(k), str(v)) for k, v in request.get("headers") or []]
        named = request.get("provider")
        if named is not None:
            provider = PROVIDERS.get(str(named))
            if (
                provider is None
                or environ is None
                or origin_of(url) not in allowed_origins(provider.name, environ)
            ):
                return {"refused": f"wireconf record mode: {url} is not {named}'s origin; nothing was sent"}
            url, headers = provider.authorised(url, headers, environ)
        outgoing = http.Request(
            str(request.get("method")),
            url,
            headers=headers,
            content=base64.b64decode(request.get("body", "")),
        )
        response = client.send(outgoing)
    except Exception as exc:  # the provider cannot be reached: the runner's client sees a connection error
        return {"refused": f"wireconf record mode: {type(exc).__name__}: {exc}"}
    return {
        "status": response.status_code,
        "reason": response.reason_phrase,
        "headers": [list(pair) for pair in response.headers.multi_items()],
        "body": base64.b64encode(response.content).decode("ascii"),
    }


def serve(
    sock: socket.socket,
    origins: frozenset[Any],
    client: Any,
    http: Any,
    environ: Mapping[str, str] | None = None,
) -> None:
    """The pytest process's end, on a thread of its own until the runner's end closes: ``client`` an
    ``httpx.Client`` of module ``http``, both made before the thread starts (a fork must never copy a
    half-done import or a lock held by a thread it does not copy); ``environ``: where the credentials
    of a request that names its provider are read."""
    with sock, client:
        while True:
            try:
                request = _receive(sock)
            except (OSError, EOFError, ValueError):
                return
            try:
                _send(sock, _answer(client, http, request, origins, environ))
            except OSError:
                return


def open_passage(environ: Mapping[str, str]) -> tuple[socket.socket, socket.socket]:
    """``(runner's end, pytest's end)``; the pytest process's end is served by a thread already."""
    import httpx

    client = httpx.Client(trust_env=True, timeout=httpx.Timeout(600.0, connect=30.0))
    ours, theirs = socket.socketpair()
    arguments = (ours, _origins(environ), client, httpx, environ)
    threading.Thread(target=serve, args=arguments, daemon=True, name="wireconf-passage").start()
    return theirs, ours


def close_quietly(sock: socket.socket | None) -> None:
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.close()
