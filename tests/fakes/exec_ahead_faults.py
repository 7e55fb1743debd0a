"""An out-of-process runtime that says ``ahead`` and answers every call right, the reference's way, but
for one fault about call ``GUILTY`` (``python -m tests.fakes.exec_ahead_faults FAULT``):

- ``stray-yield``: a ``yield`` for it after its ``result``;
- ``duplicate``: a second ``result`` for it;
- ``other-id``: while working on the next call, an ``error`` naming it;
- ``late``: two calls later, a ``yield`` naming it (its case was reported by then).

Calls are numbered as written, each case's in turn, so the tests find call ``GUILTY``'s case from the
transcript.
"""

from __future__ import annotations

import sys
from typing import Any

from wireconf.exec_protocol.serve import Server
from wireconf.runtimes.python_impl import load_python

GUILTY = 2


class FaultyServer(Server):
    """The Python helper's server, with one fault about call ``GUILTY``."""

    def __init__(self, fault: str, *args: Any) -> None:
        super().__init__(*args)
        self.fault = fault

    def run_call(self, call: dict[str, Any]) -> None:
        if self.fault == "other-id" and call["id"] == GUILTY + 1:
            self.send({"type": "error", "id": GUILTY, "error": {"type": "RuntimeError", "message": "stray"}})
        if self.fault == "late" and call["id"] == GUILTY + 2:
            self.send({"type": "yield", "id": GUILTY, "item": "late"})
        super().run_call(call)
        if call["id"] != GUILTY:
            return
        if self.fault == "stray-yield":
            self.send({"type": "yield", "id": GUILTY, "item": "stray"})
        elif self.fault == "duplicate":
            self.send({"type": "result", "id": GUILTY, "value": None})


def main() -> int:
    adapter = load_python("reference").adapter
    protocol_out, sys.stdout = sys.stdout, sys.stderr
    return FaultyServer(sys.argv[1], adapter, sys.stdin, protocol_out).serve()


if __name__ == "__main__":
    sys.exit(main())
