"""Keep the garbage collector off the objects a corpus run holds for its whole length.

A corpus run holds some 400,000 objects that live until it ends: the SDKs' modules and models, the
parsed corpus, its items. Every full collection walks all of them (about 0.4 s on a 2-core machine),
and pytest runs two at the end of each session to surface exceptions raised in finalizers, besides
those Python runs as the cases allocate. ``gc.freeze()`` moves them out of the collector's sight; what
the cases allocate is collected as usual.

The collector is also kept off during collection itself: loading a corpus of thousands of cases
allocates millions of objects that all live on, and the collections their allocation triggers walk
them again and again, for nothing (1.4 s of a 2.7 s collection of 9,200 cases). It is turned back on
when collection ends, whatever was collected.

The heap is frozen after a collection that found corpus cases, and again after a case that imported
modules (an SDK is imported by the first case that needs it); the controller of a pytest-xdist run,
which collects nothing, freezes when its session starts (it holds the plugins, the implementation's
modules and the rule catalogue while it reads tens of thousands of reports); other sessions never
freeze. The next
session in the same process (pytester's in-process runs, the mutants of ``wireconf strength``)
unfreezes first, so that what an earlier session left behind can still be collected.
"""

from __future__ import annotations

import gc
from collections.abc import Generator

import pytest

from wireconf.pytest_plugin import heap_freeze
from wireconf.pytest_plugin.case_host import is_runnable

XDIST_CONTROLLER = "dsession"
"""The name pytest-xdist registers its controller's plugin under (only in the controller)."""


def pytest_configure(config: pytest.Config) -> None:
    heap_freeze.unfreeze()


_collected_cases = False


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection(session: pytest.Session) -> Generator[None, object, object]:
    """No garbage collection while collecting (see the module docstring); freezing at its end
    (``pytest_collection_finish``) keeps what it built out of every later collection."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return (yield)
    finally:
        if enabled:
            gc.enable()


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if session.config.pluginmanager.has_plugin(XDIST_CONTROLLER):
        heap_freeze.freeze()


def pytest_itemcollected(item: pytest.Item) -> None:
    global _collected_cases
    _collected_cases = _collected_cases or is_runnable(item)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze when the session collected corpus cases, run or deselected alike: their corpus is held
    either way."""
    global _collected_cases
    if _collected_cases:
        _collected_cases = False
        heap_freeze.freeze()


def pytest_runtest_teardown(item: pytest.Item) -> None:
    if heap_freeze.modules_changed():
        heap_freeze.freeze()
