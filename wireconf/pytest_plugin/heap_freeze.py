"""Whether the plugin froze the heap (``gc.freeze``), and freezing it again: the state ``frozen_heap``
(the hooks that decide when) shares with the case runner, which freezes its warm-up before it forks.

A module apart from the hooks, so that the runner can import it without importing a plugin module
before pytest registers it (pytest would warn that it cannot rewrite its asserts)."""

from __future__ import annotations

import gc
import sys

_modules_when_frozen: int | None = None
"""``len(sys.modules)`` when the heap was last frozen; ``None`` when it is not frozen."""


def freeze() -> None:
    global _modules_when_frozen
    gc.freeze()
    _modules_when_frozen = len(sys.modules)


def refreeze() -> None:
    """Freeze what was allocated since the heap was frozen, if it was (the case runner's warm-up, before
    it forks). Asking ``gc.get_freeze_count()`` instead would walk every frozen object."""
    if _modules_when_frozen is not None:
        freeze()


def unfreeze() -> None:
    """Let a new session collect what an earlier one left frozen."""
    global _modules_when_frozen
    if _modules_when_frozen is not None:
        gc.unfreeze()
        _modules_when_frozen = None


def modules_changed() -> bool:
    """Whether the heap is frozen and modules were imported since (a case imported an SDK)."""
    return _modules_when_frozen is not None and len(sys.modules) != _modules_when_frozen
