"""What a case runner needs from the session and from a case item, as protocols.

The runners (the ``runners`` package, case_run.py) are created by the session and run the session's
items; naming those two classes here instead of importing them keeps the dependencies one way
(items → session → runners → case_host) with no cycle, and says exactly which attributes a runner
relies on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol, TypeGuard

import pytest

from wireconf.cassettes.watch import CassetteWatch
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import CaseBase
from wireconf.kinds.base import HarnessContext
from wireconf.runtimes.python_impl import LoadedImpl
from wireconf.sdk.replay import SdkReplay


class RunnableCase(Protocol):
    """A collected case (``items.CaseItem``) as a runner sees it (read-only: a runner never sets them)."""

    loaded: LoadedCase[CaseBase]

    @property
    def corpus_root(self) -> Path: ...

    @property
    def nodeid(self) -> str: ...

    @property
    def session(self) -> pytest.Session: ...


def is_runnable(item: pytest.Item) -> TypeGuard[RunnableCase]:
    """Whether a collected item is a case (a ``CaseItem``: it has a loaded case), not a corpus problem
    or another plugin's test."""
    return getattr(item, "loaded", None) is not None


class PlanView(Protocol):
    """The run's order as a runner reads it (``runners.Plan``, written by the run loop)."""

    def after(self, item: RunnableCase, k: int) -> RunnableCase | None: ...

    def following(self, item: RunnableCase, start: int, count: int) -> list[RunnableCase]: ...


class CaseHost(Protocol):
    """The pytest session's wireconf state (``session.WireconfSession``) as a runner sees it."""

    impl: LoadedImpl
    timeout: float
    replay: SdkReplay
    on_recorded: Callable[[str], None] | None

    @property
    def plan(self) -> PlanView: ...

    @property
    def case_items(self) -> Mapping[str, RunnableCase]: ...

    @property
    def records(self) -> bool: ...

    def context(self, corpus_root: Path) -> HarnessContext: ...

    def watch(self, corpus_root: Path) -> CassetteWatch | None: ...
