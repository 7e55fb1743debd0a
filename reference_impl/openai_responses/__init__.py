"""OpenAI Responses API: §7.4 (request) and §8.4 (processing, including its stream events).

``FUNCTIONS`` maps ``(kind, api)`` to the function the reference adapter calls; empty until this part
of the reference implementation is written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {}
