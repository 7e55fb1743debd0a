"""The thread runner: the fallback where forking is no option (Windows, a debugger or coverage tool that
does not follow a fork)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from wireconf.pytest_plugin.case_host import is_runnable
from wireconf.pytest_plugin.case_run import CaseResult, call_case, judge_case, prepare_case
from wireconf.pytest_plugin.runners.base import CaseRunner, look, network_watch
from wireconf.pytest_plugin.runners.warm import warm_imports
from wireconf.pytest_plugin.timeout import CaseTimeout, TimedRunner

if TYPE_CHECKING:
    from wireconf.pytest_plugin.case_host import CaseHost, RunnableCase


class ThreadRunner(CaseRunner):
    """On a worker thread, abandoned when a case overruns; the guard is installed for the whole session."""

    name = "thread"

    def __init__(self, session: CaseHost) -> None:
        super().__init__(session)
        self.timer = TimedRunner()
        self._warm = False

    @property
    def abandoned(self) -> int:
        return self.timer.abandoned

    def close(self) -> None:
        self.timer.close()
        super().close()

    def run(self, item: RunnableCase) -> CaseResult:
        if not self._warm:
            warm_imports(i for i in item.session.items if is_runnable(i))
            self._warm = True
        self._install_guard()
        self._recorded = []
        watch = self.session.watch(item.corpus_root)
        timeout = self.session.timeout
        worker = self.timer.ensure_worker() if timeout else threading.current_thread()
        ctx = self.session.context(item.corpus_root)
        prepared = prepare_case(self.session, item.loaded, item.corpus_root)
        if isinstance(prepared, CaseResult):
            return prepared
        try:
            with network_watch(lambda: worker.ident or 0) as attempts:
                called = self.timer.run(lambda: call_case(self.session, prepared), timeout)
        except CaseTimeout as exc:
            for exchange in ctx.opened:  # an abandoned recording writes nothing, now or later
                exchange.cancel()
            exc.recorded = tuple(self._recorded)
            raise
        result = called if isinstance(called, CaseResult) else judge_case(called)  # the harness's time
        result.attempts = attempts
        result.recorded = list(self._recorded)
        look(result, watch, self._recorded)
        return result
