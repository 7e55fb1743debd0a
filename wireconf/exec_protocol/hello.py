"""The hello's rules: what a runtime may say in its first message, by protocol version."""

from __future__ import annotations

from typing import Any

from wireconf.exec_protocol.messages import ProtocolError, check


def check_hello(hello: dict[str, Any]) -> None:
    """The first message is a hello that fits its record (``records.Hello``: its rules by version)."""
    if hello.get("type") != "hello":
        raise ProtocolError(f"the first message must be a hello, got {hello}")
    check(hello, "runtime")
