"""The event loop an ``async def`` adapter method is awaited on (``AdapterMethod.invoke``, ``awaited``).

One loop per thread, reused from case to case: ``asyncio.run`` would make and close a loop per case,
about 0.2 ms each (a selector and its self-pipe). What a case leaves behind on it (tasks, async
generators, scheduled callbacks) never reaches the next case.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Awaitable

from wireconf.core.untyped import AdapterResult

_LOOPS = threading.local()
"""This thread's event loop, with the process it was made in."""


async def _settle(awaitable: Awaitable[AdapterResult]) -> AdapterResult:
    return await awaitable


def run_to_completion(awaitable: Awaitable[AdapterResult]) -> AdapterResult:
    """``awaitable`` run to completion on this thread's event loop; what it left behind (tasks, async
    generators) is cancelled and closed before the next case. A loop inherited through a fork is never
    used (its epoll instance is the parent's)."""
    pid, loop = getattr(_LOOPS, "owned", (None, None))
    if loop is None or pid != os.getpid() or loop.is_closed():
        loop = asyncio.new_event_loop()
        _LOOPS.owned = (os.getpid(), loop)
    try:
        return loop.run_until_complete(_settle(awaitable))
    finally:
        left = asyncio.all_tasks(loop)
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.gather(*left, return_exceptions=True))
        # async generators left open, or callbacks ready (an async generator's finalizer schedules its
        # aclose): one more turn of the loop runs them; most cases leave neither, and save the turn
        if getattr(loop, "_asyncgens", True) or getattr(loop, "_ready", True):
            loop.run_until_complete(loop.shutdown_asyncgens())
        # callbacks still scheduled (``call_later``, ``call_soon``) would run in the next case: such a loop
        # is closed and the next case gets a new one (as does a loop whose queues cannot be seen)
        if getattr(loop, "_scheduled", True) or getattr(loop, "_ready", True):
            loop.close()
