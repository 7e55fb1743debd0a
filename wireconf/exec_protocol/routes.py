"""What the harness has written to one runtime process, by call id: the calls sent ahead and not answered
yet, what came for them early, the calls given up, and the calls answered (for fault attribution).

Data only, shared by the process (which owns one ``Routes``), the calls' builder and the send-ahead
bookkeeping, so that none of them imports another.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any

from wireconf.cassettes.downloads import Downloads
from wireconf.core.stream_probe import StreamProbe


@dataclass
class Sent:
    """One adapter call's messages, built once (a streamed argument is read once), so that they can be
    written again, with a new id, to a process started after the one they went to was stopped."""

    method: str
    messages: list[dict[str, Any]]
    downloads: Downloads
    probe: StreamProbe | None
    marks: list[int] = field(default_factory=list)
    """Where the harness's probe stood after each event (``calls.batches``)."""
    held: list[dict[str, Any]] = field(default_factory=list)
    """Protocol 4: the stream's last event and its ``end``, sent when the runtime says ``ack``."""
    window: int = 0
    """Protocol 4: how many of the stream's events go before the ``ack`` (all but the last)."""
    id: int = 0
    routes: Routes | None = None
    """The routes of the process it was written to (its answer comes from there), or ``None``."""
    case: str | None = None
    """The case that made the call (known for a call sent ahead), named by a fault that names its id."""


@dataclass
class Routes:
    """One process's calls by id."""

    ahead: dict[int, Sent] = field(default_factory=dict)
    """Calls sent before their case ran, not answered yet."""
    buffered: dict[int, collections.deque[dict[str, Any]]] = field(default_factory=dict)
    """What the runtime sent for a call sent ahead while the harness waited for an earlier one."""
    orphans: dict[int, Sent] = field(default_factory=dict)
    """Calls sent ahead whose case did not claim them: their answers are read and dropped, their media
    downloads and ``ack`` still answered, so that the conversation stays in step."""
    held: dict[int, list[str]] = field(default_factory=dict)
    """Protocol 4: the lines (a stream's last event and ``end``) written when the runtime acks the
    call of that id (``Process.release``, from whichever thread reads the ``ack`` first)."""
    answered: dict[int, str | None] = field(default_factory=dict)
    """Calls the runtime answered, with the case that made them (``None``: not known)."""
    highest: int = 0
    """The highest call id written to this process."""
