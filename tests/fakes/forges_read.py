"""An out-of-process runtime that buffers a stream (``buffers_stream``) and says, at each ``yield``,
that its SDK had read one event (``read: 1``): a claim the harness must not take
(``python -m tests.fakes.forges_read PROTOCOL``, protocol 3 or 4, with ``pipeline``)."""

from __future__ import annotations

import sys

from tests.fakes.buffers_stream import adapter
from wireconf.exec_protocol.serve import Server


class ForgingServer(Server):
    def _read(self, call_id: int) -> dict[str, int]:
        return {"read": 1}


def main() -> int:
    protocol_out, sys.stdout = sys.stdout, sys.stderr
    return ForgingServer(adapter, sys.stdin, protocol_out, int(sys.argv[1])).serve()


if __name__ == "__main__":
    sys.exit(main())
