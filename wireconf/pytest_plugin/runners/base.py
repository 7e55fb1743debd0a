"""What every runner shares: the guard installed where adapter code runs, and what a case leaves behind
(its network attempts, its changes to the watched cassettes folder) read into its result."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from wireconf.cassettes.network_guard import GUARD, charged

if TYPE_CHECKING:
    from wireconf.cassettes.watch import CassetteWatch
    from wireconf.pytest_plugin.case_host import CaseHost, RunnableCase
    from wireconf.pytest_plugin.case_run import CaseResult

GUARD_ONLY = "the in-process guard only (subprocesses and the raw _socket module are not covered)"


def threads() -> set[int]:
    return {t.ident for t in threading.enumerate() if t.ident is not None}


@contextlib.contextmanager
def network_watch(runner_thread: Callable[[], int]) -> Iterator[list[str]]:
    """The network attempts of the case's runner thread and of threads it started (filled in when the
    block ends)."""
    mark, before = GUARD.mark(), threads()
    attempts: list[str] = []
    yield attempts
    ident = runner_thread()
    attempts += charged(GUARD.since(mark), before - {ident}, ident)


def look(result: CaseResult, watch: CassetteWatch | None, recorded: Iterable[str]) -> None:
    """Fill in what changed in the watched cassettes folder since the last look, by who did it (read
    after each case by the process that ran it; ``recorded``: what the harness recorded meanwhile)."""
    if watch is None:
        return
    changes = watch.look(recorded)
    result.watched, result.changed, result.unknown = str(watch.root), changes.runtime, changes.unknown


class CaseRunner:
    """Runs cases; ``network`` says how the network is blocked where adapter code runs."""

    name = "inline"
    network = GUARD_ONLY

    def __init__(self, session: CaseHost) -> None:
        self.session = session
        self._recorded: list[str] = []
        self._guarded = False

    def _note_recorded(self, path: str) -> None:
        self._recorded.append(path)

    def _install_guard(self) -> None:
        if not self._guarded:
            GUARD.install()
            self._guarded = True
            self.session.on_recorded = self._note_recorded

    def start_early(self, item: RunnableCase) -> None:
        """Start what the first case would (a process), before the run loop's first case: ``item`` is
        the first case of the run. Nothing by default."""

    def run(self, item: RunnableCase) -> CaseResult:
        """Run ``item`` (a runner may have started it early, from the session's ``Plan``)."""
        raise NotImplementedError

    def close(self) -> None:
        if self._guarded:
            GUARD.uninstall()
            self._guarded = False
