"""The payload extractors of seed 003 (extract): SchemaMap engine, built-in maps, registries.

``FUNCTIONS`` maps ``(kind, api)`` to the function the reference adapter calls; empty until this part
of the reference implementation is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {}
