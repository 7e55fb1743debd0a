"""The stream processor of seed 002 (blocks): provider streams → the StreamStates a policy callback sees.

``FUNCTIONS`` maps ``(kind, api)`` to the function the reference adapter calls; empty until this part
of the reference implementation is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {}
