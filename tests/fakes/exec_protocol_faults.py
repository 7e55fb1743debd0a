"""An out-of-process runtime (served by ``wireconf.exec_protocol.serve``) that breaks the exec protocol
on its raw stdout, once each, in its first calls of a run (markers in ``$WIRECONF_HOSTILE_DIR``):

1. a reply for another call id in the middle of its first call;
2. a stray line written after its answer to its second call (the answer itself is right);
3. nothing wrong with the third;
4. a line that is not JSON in the middle of its fourth call.

What the runtime computes is the reference's, so every case it answers properly passes.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from tests.fakes.base import FakeAdapter
from tests.fakes.hostile import first_time
from wireconf.exec_protocol import serve

_after_answer: list[str] = []
_send = serve.Server.send


def _send_then_stray(self: serve.Server, message: dict[str, Any]) -> None:
    _send(self, message)
    if message.get("type") in ("result", "error") and _after_answer:
        self.stdout.write(_after_answer.pop() + "\n")
        self.stdout.flush()


serve.Server.send = _send_then_stray  # type: ignore[method-assign]


def _raw(line: str) -> None:
    """A line on the protocol's stdout, bypassing the helper (which sends the runtime's prints to stderr)."""
    out = sys.__stdout__
    assert out is not None
    out.write(line + "\n")
    out.flush()


class Adapter(FakeAdapter):
    name = "exec-protocol-faults"

    def build_request(self, api: str, agent: Any, messages: Any) -> Any:
        if first_time("wrong-id"):
            _raw(json.dumps({"type": "result", "id": 987654, "value": {}}))
        elif first_time("stray-after-answer"):
            _after_answer.append("debug: request built")
        elif first_time("clean"):
            pass
        elif first_time("junk-mid-call"):
            _raw("building the request now...")
        return super().build_request(api, agent, messages)


adapter = Adapter()
