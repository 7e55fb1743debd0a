"""The thread timer of the ``thread`` case runner (and the exceptions that stop a case, from
``harness.case_abort``).

The thread timer runs a call on a daemon worker thread that is reused from case to case; when a call
overruns, the thread is abandoned (Python cannot stop a thread) and the next call gets a fresh one.
It is the fallback where processes cannot be forked, and it says so: code that holds the GIL keeps
the whole process waiting, and an abandoned thread keeps running (the process runner, the default,
stops both; ``harness.pytest_plugin.runner``).
"""

from __future__ import annotations

import argparse
import math
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from harness.case_abort import CaseAborted, CaseTimeout, RunnerEnded

__all__ = ["CaseAborted", "CaseTimeout", "RunnerEnded", "TimedRunner"]

T = TypeVar("T")


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
        self.worker: threading.Thread | None = None

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
                except BaseException as exc:  # the call's exception is its outcome
                    reply.put(_Outcome(error=exc))

        self.worker = threading.Thread(target=work, name=f"wireconf-case-{self._abandoned}", daemon=True)
        self.worker.start()
        return jobs

    def ensure_worker(self) -> threading.Thread:
        """The worker thread the next call runs on (started if needed)."""
        if self._jobs is None:
            self._jobs = self._start_worker()
        assert self.worker is not None
        return self.worker

    def run(self, fn: Callable[[], T], seconds: float | None) -> T:
        """``fn()``'s value; re-raises its exception; raises ``CaseTimeout`` after ``seconds``."""
        if not seconds or seconds <= 0:
            return fn()
        self.ensure_worker()
        assert self._jobs is not None
        reply: queue.SimpleQueue[_Outcome[T]] = queue.SimpleQueue()
        started = time.monotonic()
        self._jobs.put((fn, reply))  # type: ignore[arg-type]
        try:
            outcome = reply.get(timeout=seconds)
        except queue.Empty:
            self._jobs = None  # the worker is stuck in fn; the next call starts a new one
            self._abandoned += 1
            elapsed = time.monotonic() - started
            raise CaseTimeout(
                seconds,
                elapsed,
                f"the adapter did not return within {seconds:g} s and was abandoned after {elapsed:.1f} s "
                "(a thread cannot be stopped: it may still run; --case-runner=process stops it)",
            ) from None
        if outcome.error is not None:
            raise outcome.error
        return outcome.value  # type: ignore[return-value]


def timeout_seconds(text: str) -> float:
    """``--case-timeout``'s type: a finite number of seconds, 0 or more (0 disables the limit). ``nan``
    would disable it silently and ``inf`` make every wait overflow; a negative limit has no meaning."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give a finite number of seconds, 0 or more (0 disables the limit)"
        )
    return seconds
