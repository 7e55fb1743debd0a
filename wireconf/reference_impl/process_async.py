"""§8 preamble: ``process_async(agent, response) → result`` beside ``process``, for every api.

The async variant runs the api's own processor on the same SDK object. Processing reads a response
that has already arrived, so there is no I/O to await, and the spec gives both variants one result:
sharing the code is what keeps them from drifting apart (rule 8/process-async-same-result).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Processor = Callable[[dict[str, Any], Any], Any]


async def process_async(process: Processor, agent: dict[str, Any], response: Any) -> Any:
    """The result of ``process(agent, response)``, from a coroutine."""
    return process(agent, response)
