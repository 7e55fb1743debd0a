"""Anthropic Messages: §7.5 (request) and §8.5 (processing, including its SSE stream).

``FUNCTIONS`` maps ``(kind, api)`` to the function the reference adapter calls; empty until this part
of the reference implementation is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {}
