"""Run adapter calls with a time limit, so that one hanging adapter costs one case, not the run.

Calls run on a daemon worker thread that is reused from case to case; when a call overruns, that
thread is abandoned (Python cannot kill a thread) and the next call gets a fresh one. Daemon threads
never keep the interpreter alive at exit. Signals are not used: they only reach the main thread and
cannot interrupt C code, and they would not work under every pytest plugin.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from harness.errors import WireconfError

T = TypeVar("T")


class CaseTimeout(WireconfError):
    """The adapter did not return within the time limit."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(
            f"the adapter did not return within {seconds:g} s (--case-timeout); it was abandoned"
        )


@dataclass
class _Outcome(Generic[T]):
    value: T | None = None
    error: BaseException | None = None


class TimedRunner:
    """Runs one call at a time on a worker thread, waiting at most ``seconds`` for it."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue[_Outcome[Any]]]] | None = (
            None
        )
        self._abandoned = 0

    @property
    def abandoned(self) -> int:
        """How many calls overran and were left running."""
        return self._abandoned

    def _start_worker(self) -> queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue[_Outcome[Any]]]]:
        jobs: queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue[_Outcome[Any]]]] = (
            queue.SimpleQueue()
        )

        def work() -> None:
            while True:
                fn, reply = jobs.get()
                try:
                    reply.put(_Outcome(value=fn()))
                except BaseException as exc:  # the adapter's exception is the case's outcome
                    reply.put(_Outcome(error=exc))

        threading.Thread(target=work, name="wireconf-case", daemon=True).start()
        return jobs

    def run(self, fn: Callable[[], T], seconds: float | None) -> T:
        """``fn()``'s value; re-raises its exception; raises ``CaseTimeout`` after ``seconds``."""
        if not seconds or seconds <= 0:
            return fn()
        if self._jobs is None:
            self._jobs = self._start_worker()
        reply: queue.SimpleQueue[_Outcome[T]] = queue.SimpleQueue()
        self._jobs.put((fn, reply))  # type: ignore[arg-type]
        try:
            outcome = reply.get(timeout=seconds)
        except queue.Empty:
            self._jobs = None  # the worker is stuck in fn; the next call starts a new one
            self._abandoned += 1
            raise CaseTimeout(seconds) from None
        if outcome.error is not None:
            raise outcome.error
        return outcome.value  # type: ignore[return-value]
