"""The messages that open and close a runtime's run, besides ``hello``."""

from __future__ import annotations

from typing import Literal

from wireconf.exec_protocol.records.base import Record


class Stop(Record):
    """harness → runtime: the run is over; exit with status 0."""

    type: Literal["stop"] = "stop"


class Warm(Record):
    """runtime → harness, protocol 2, only after a hello that says `warming`: loading is done; calls are
    served from now on."""

    type: Literal["warm"] = "warm"
