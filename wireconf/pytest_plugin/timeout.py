"""The thread timer of the ``thread`` case runner (and the exceptions that stop a case, from
``wireconf.core.case_abort``).

The thread timer runs a call on a daemon worker thread that is reused from case to case; when a call
overruns, the thread is abandoned (Python cannot stop a thread) and the next call gets a fresh one.
It is the fallback where processes cannot be forked, and it says so: code that holds the GIL keeps
the whole process waiting, and an abandoned thread keeps running (the process runner, the default,
stops both; ``wireconf.pytest_plugin.runners``).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from wireconf.core.case_abort import CaseAborted, CaseTimeout, RunnerEnded
from wireconf.pytest_plugin.options import timeout_seconds as timeout_seconds  # --case-timeout's type

__all__ = ["CaseAborted", "CaseTimeout", "RunnerEnded", "TimedRunner"]

T = TypeVar("T")


@dataclass
class _Outcome(Generic[T]):
    value: T | None = None
    error: BaseException | None = None


_Jobs = queue.SimpleQueue[tuple[Callable[[], Any], queue.SimpleQueue[_Outcome[Any]]] | None]
"""A worker's calls, each with the queue its outcome goes to; ``None`` tells the worker to end."""


class TimedRunner:
    """Runs one call at a time on a worker thread, waiting at most ``seconds`` for it."""

    def __init__(self) -> None:
        self._jobs: _Jobs | None = None
        self._abandoned = 0
        self.worker: threading.Thread | None = None

    @property
    def abandoned(self) -> int:
        """How many calls overran and were left running."""
        return self._abandoned

    def _start_worker(self) -> _Jobs:
        jobs: _Jobs = queue.SimpleQueue()

        def work() -> None:
            while True:
                job = jobs.get()
                if job is None:  # abandoned or closed: end once the call in hand is done
                    return
                fn, reply = job
                try:
                    reply.put(_Outcome(value=fn()))
                except BaseException as exc:  # the call's exception is its outcome
                    reply.put(_Outcome(error=exc))

        self.worker = threading.Thread(target=work, name=f"wireconf-case-{self._abandoned}", daemon=True)
        self.worker.start()
        return jobs

    def close(self) -> None:
        """End the worker (an idle one at once, an abandoned one when its call returns), so that no
        thread of this runner outlives the session waiting for work."""
        if self._jobs is not None:
            self._jobs.put(None)
            self._jobs = None

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
        self._jobs.put((fn, reply))
        try:
            outcome = reply.get(timeout=seconds)
        except queue.Empty:
            self._jobs.put(None)  # the worker is stuck in fn: it ends when fn does
            self._jobs = None  # the next call starts a new one
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
        return cast("T", outcome.value)  # the call's own value: it returned, without an error
