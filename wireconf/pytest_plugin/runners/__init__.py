"""Where a case runs, so that its time limit holds and nothing it leaves behind reaches another case.

- ``process`` (the default on Linux, ``forked.py``): a case-runner process forked from the pytest process
  once the cases are collected (``child.py``). It runs each case whole
  (``wireconf.pytest_plugin.case_run``: inputs, adapter call, canonicalisation, judging) and sends back
  plain data (``pipe.py``). When a case overruns ``--case-timeout`` the runner process is killed
  (``reaping.py``), whatever it was doing (C code that never releases the GIL, a blocking ``Mapping``,
  threads the adapter started), and the next case gets a fresh fork; when the adapter ends the process
  (``os._exit``), only that case is lost. The runner has a network namespace of its own
  (``wireconf.cassettes.netns``) and the in-process guard installed for its whole life. A fork costs tens
  of milliseconds once per session (and once per killed case); a case costs one message each way on a
  pipe. SDK imports are warmed up before the fork (``warm.py``), so every fork has them. The run loop
  forks the first one before the first case (``CaseRunner.start_early``): it isolates itself while the
  pytest process begins the first item. While the pytest process reports a case, the runner already runs
  the next ones (up to ``ForkedRunner.AHEAD`` of them, from the ``Plan`` the run loop hands the session
  once, ``plan.py``: the cases in the order pytest runs them, those whose input is an SDK stream last,
  each marked whether anything but its adapter's answer can keep it from running): the two processes
  overlap on two cores, and each case still runs alone, in order, under its own time limit (read off a
  shared page, ``progress.py``), with its own output, log records (``logs.py``) and cassette-folder
  changes (the runner reads the folder's watch after each case). An item never looks ahead; it asks the
  runner for its own case.
- ``thread`` (``thread.py``): the calls run on a worker thread that is abandoned on timeout (Windows, or
  a debugger or coverage tool that does not follow a fork); the guard is installed for the whole session.
- out-of-process adapters (``exec:``) run inline (``inline.py``), after the same warm-up: the adapter
  itself kills and restarts its runtime process when the time limit passes, and restarts are bounded by
  the same limit. The runners reach it through ``wireconf.adapter_contract.OutOfProcess`` alone.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from wireconf.adapter_contract import out_of_process
from wireconf.pytest_plugin.runners.base import CaseRunner
from wireconf.pytest_plugin.runners.forked import ForkedRunner
from wireconf.pytest_plugin.runners.inline import InlineRunner
from wireconf.pytest_plugin.runners.logs import replay_logs
from wireconf.pytest_plugin.runners.plan import Plan
from wireconf.pytest_plugin.runners.reaping import wait_reaped
from wireconf.pytest_plugin.runners.thread import ThreadRunner

if TYPE_CHECKING:
    from wireconf.pytest_plugin.case_host import CaseHost

__all__ = [
    "DEFAULT_RUNNER",
    "RUNNERS",
    "CaseRunner",
    "ForkedRunner",
    "InlineRunner",
    "Plan",
    "ThreadRunner",
    "make_runner",
    "replay_logs",
    "wait_reaped",
]

RUNNERS = ("process", "thread")
DEFAULT_RUNNER = "process" if sys.platform.startswith("linux") and hasattr(os, "fork") else "thread"


def make_runner(session: CaseHost, choice: str) -> CaseRunner:
    """The runner for this session: inline for out-of-process adapters, else the chosen one."""
    if out_of_process(session.impl.adapter) is not None:
        return InlineRunner(session)
    if choice == "process" and hasattr(os, "fork"):
        return ForkedRunner(session)
    if not session.timeout:
        return InlineRunner(session)
    return ThreadRunner(session)
