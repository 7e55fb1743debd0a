"""The hello's rules: what a runtime may say in its first message, by protocol version."""

from __future__ import annotations

from typing import Any

from wireconf.exec_protocol import PROTOCOL_VERSIONS
from wireconf.exec_protocol.http_bridge import unbridgeable
from wireconf.exec_protocol.messages import ProtocolError
from wireconf.kinds.registry import KINDS


def check_hello(hello: dict[str, Any]) -> None:
    if hello.get("type") != "hello":
        raise ProtocolError(f"the first message must be a hello, got {hello}")
    protocol = hello.get("protocol")
    if protocol not in PROTOCOL_VERSIONS:
        raise ProtocolError(
            f"protocol {protocol!r} is not supported (this harness speaks "
            f"{', '.join(map(str, PROTOCOL_VERSIONS))})"
        )
    inputs = hello.get("inputs", "json")
    if inputs not in ("json", "recorded") or (inputs != "json" and protocol < 2):
        raise ProtocolError(f'hello\'s `inputs` is "json" or, from protocol 2, "recorded": {hello}')
    for key in ("name", "version"):
        if not isinstance(hello.get(key), str) or not hello[key]:
            raise ProtocolError(f"hello needs a non-empty string {key!r}: {hello}")
    if not isinstance(hello.get("categories", False), bool) or (hello.get("categories") and protocol < 2):
        raise ProtocolError(f"hello's `categories` is true or false, from protocol 2: {hello}")
    if not isinstance(hello.get("warming", False), bool) or (hello.get("warming") and protocol < 2):
        raise ProtocolError(f"hello's `warming` is true or false, from protocol 2: {hello}")
    if not isinstance(hello.get("pipeline", False), bool) or (hello.get("pipeline") and protocol < 3):
        raise ProtocolError(f"hello's `pipeline` is true or false, from protocol 3: {hello}")
    if not isinstance(hello.get("ahead", False), bool) or (hello.get("ahead") and not hello.get("pipeline")):
        raise ProtocolError(
            f"hello's `ahead` is true or false, true only with `pipeline` (protocol 3): {hello}"
        )
    optional = hello.get("optional", [])
    if not isinstance(optional, list) or not all(isinstance(m, str) for m in optional):
        raise ProtocolError(f"hello's `optional` is a list of method names: {hello}")
    caps = hello.get("capabilities")
    if not isinstance(caps, list) or not all(isinstance(c, str) for c in caps):
        raise ProtocolError(f"hello needs `capabilities`, a list of strings: {hello}")
    for kind in KINDS.values():
        if not any(c.startswith(f"{kind.name}:") for c in caps):
            continue
        if kind.exec_protocol is None:
            raise ProtocolError(f"{kind.name} capabilities cannot be served over exec: ({kind.exec_limits})")
        if protocol < kind.exec_protocol:
            raise ProtocolError(
                f"{kind.name} capabilities need protocol {kind.exec_protocol} ({kind.exec_limits})"
            )
        if kind.method is not None and kind.method.http_client is not None:
            for capability in caps:
                api = capability.partition(":")[2]
                why = unbridgeable(api) if capability.startswith(f"{kind.name}:") else None
                if why is not None:
                    raise ProtocolError(
                        f"{capability} cannot be served over exec: the harness cannot hand its SDK "
                        f"client to another process ({why}); leave it out of the hello"
                    )
