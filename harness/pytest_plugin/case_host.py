"""What a case runner needs from the session and from a case item, as protocols.

The runners (runner.py, case_run.py) are created by the session and run the session's items; naming
those two classes here instead of importing them keeps the dependencies one way
(items → session → runner → case_host) with no cycle, and says exactly which attributes a runner
relies on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

import pytest

from harness.corpus.case import LoadedCase
from harness.impl_loader import LoadedImpl
from harness.kinds.base import HarnessContext
from harness.sdk.replay import SdkReplay


class RunnableCase(Protocol):
    """A collected case (``items.CaseItem``) as a runner sees it."""

    loaded: LoadedCase[Any]
    corpus_root: Path
    nodeid: str
    session: pytest.Session


class CaseHost(Protocol):
    """The pytest session's wireconf state (``session.WireconfSession``) as a runner sees it."""

    impl: LoadedImpl
    timeout: float
    replay: SdkReplay
    case_items: Mapping[str, RunnableCase]
    on_recorded: Callable[[str], None] | None

    @property
    def records(self) -> bool: ...

    def context(self, corpus_root: Path) -> HarnessContext: ...
