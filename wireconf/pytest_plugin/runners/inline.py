"""The inline runner: cases in the calling thread, for out-of-process adapters (``exec:``), which bound
their own calls, and for ``--case-timeout 0`` where forking is no option (a debugger works)."""

from __future__ import annotations

import contextlib
import threading
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from wireconf.adapter_contract import OutOfProcess, out_of_process
from wireconf.kinds.registry import KINDS
from wireconf.pytest_plugin.case_run import CaseResult, Prepared, call_case, judge_case, prepare_case
from wireconf.pytest_plugin.runners.base import CaseRunner, look, network_watch
from wireconf.pytest_plugin.runners.warm import warm_up

if TYPE_CHECKING:
    from wireconf.pytest_plugin.case_host import CaseHost, RunnableCase

Window = list[tuple["RunnableCase", Prepared | CaseResult]]


class InlineRunner(CaseRunner):
    """In the calling thread: for out-of-process adapters, which bound their own calls (and restarts)
    by the time limit, and for ``--case-timeout 0`` with the thread runner (a debugger works). Before
    its first case it warms up as the forked runner does before its fork (``warm_up``), while an
    ``exec:`` runtime warms up in its own process. An ``exec:`` runtime whose hello says ``ahead`` gets
    the calls of the cases the plan has next before they run (``_send_ahead``), so that it works on them
    while this process judges and reports; each case still waits for its own answers, in order, under
    its own time limit, which starts when it does. The adapter is reached through ``OutOfProcess`` only
    (``wireconf.adapter_contract``)."""

    AHEAD = 8
    """Cases whose calls an ``exec:`` runtime that says ``ahead`` gets before they run: enough for the
    runtime to stay busy while this process judges and reports, few enough that a pipe of 64 KiB
    holds their calls."""

    def __init__(self, session: CaseHost) -> None:
        super().__init__(session)
        self._runtime: OutOfProcess | None = out_of_process(session.impl.adapter)
        if self._runtime is not None:
            self.name = "exec"
            self.network = self._runtime.network
        self._prepared: dict[str, Prepared | CaseResult] = {}
        """Cases prepared ahead (their calls written to the runtime), by node id."""
        self._warm = False
        self.ahead = 0
        """Cases whose calls were written before pytest asked for them."""

    def run(self, item: RunnableCase) -> CaseResult:
        if not self._warm:
            warm_up(self.session, item)
            self._warm = True
        self._install_guard()
        self._recorded = []
        watch = self.session.watch(item.corpus_root)
        timeout = self.session.timeout or None
        runtime = self._runtime
        prepared = self._prepared.pop(item.nodeid, None) or prepare_case(
            self.session, item.loaded, item.corpus_root
        )
        ahead = runtime is not None and runtime.sends_ahead is True and not self.session.records
        # the window is prepared before `ready`: on the first case, the harness's own SDK imports and
        # cassette parsing run while the runtime is still warming up (it says `warm` once loaded)
        window = self._window(item, prepared) if ahead else []
        if runtime is not None:
            runtime.ready(timeout)
            if ahead:
                self._send_ahead(item, window, runtime)
        if isinstance(prepared, CaseResult):
            return prepared
        bounded: AbstractContextManager[None] = contextlib.nullcontext()
        claimed: AbstractContextManager[None] = contextlib.nullcontext()
        if runtime is not None:
            bounded = runtime.time_limit(timeout)
            if ahead:
                claimed = runtime.claimed(item.nodeid)
        with network_watch(threading.get_ident) as attempts, bounded, claimed:
            called = call_case(self.session, prepared)
        result = called if isinstance(called, CaseResult) else judge_case(called)  # the harness's time
        result.attempts = attempts
        result.recorded = list(self._recorded)
        look(result, watch, self._recorded)
        return result

    def _window(self, item: RunnableCase, prepared: Prepared | CaseResult) -> Window:
        """``item`` and the next ``AHEAD`` cases of the plan, prepared (as ``run`` would), up to a
        barrier or just past a case whose calls cannot go ahead (``goes_ahead``)."""
        window: Window = [(item, prepared)]
        for k in range(1, self.AHEAD + 1):
            upcoming = self.session.plan.after(item, k)
            if upcoming is None:
                break
            ready = self._prepared.get(upcoming.nodeid) or prepare_case(
                self.session, upcoming.loaded, upcoming.corpus_root
            )
            window.append((upcoming, ready))
            if not (isinstance(ready, CaseResult) or goes_ahead(ready)):
                break
        self._prepared = {case.nodeid: ready for case, ready in window[1:]}
        return window

    def _send_ahead(self, item: RunnableCase, window: Window, runtime: OutOfProcess) -> None:
        """Write the calls of the window's cases that were not written yet, ``item``'s first, up to a
        case whose calls cannot go ahead; calls written for cases no longer in it are given up."""
        runtime.keep_ahead([case.nodeid for case, _ in window])
        for case, ready in window:
            if isinstance(ready, CaseResult):
                continue
            if not goes_ahead(ready):
                break
            if not runtime.has_sent_ahead(case.nodeid):
                runtime.send_ahead(case.nodeid, ready.call)
                self.ahead += case is not item
        runtime.flush()


def goes_ahead(prepared: Prepared) -> bool:
    """Whether a case's calls can be written before it runs: not when its method hands over an SDK
    client (its HTTP is bridged by the case's own run)."""
    method = KINDS[prepared.loaded.kind].method
    return method is not None and method.http_client is None
