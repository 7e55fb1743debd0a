"""One driver per kind of case: how its inputs are prepared and how the adapter is called.

A driver module has ``NOUN`` (what the result is called in messages) and
``prepare(ctx, case) -> Call``: inputs are built (cassette → SDK object) outside the time limit, and
the returned call is what runs under it.
"""

from __future__ import annotations

from types import ModuleType

from harness.kinds import process, stream, wire

DRIVERS: dict[str, ModuleType] = {"wire": wire, "process": process, "stream": stream}
