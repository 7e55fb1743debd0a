"""The SDK objects already parsed from recorded bytes, so that the same bytes go through an SDK once.

A corpus hands the same recorded response to several cases (cases on one cassette interaction, the
second object a ``process`` case parses for ``process_async``, every mutant of ``wireconf strength``).
The SDK's request and parsing machinery costs about 1 ms per object; a deep copy of the object it made
costs a tenth of that and is equal to it field for field (its class, fields, the fields the SDK set,
its private attributes). Each caller gets its own copy: the kept object is never handed out, so an
adapter that mutates its input cannot change another case's.
"""

from __future__ import annotations

import copy
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from harness.cassettes.store import RecordedResponse

MAX_KEPT = 1024
"""Distinct responses kept per process (the project's corpus has about 150); the least recently used
one goes first."""

Key = tuple[str, int, tuple[tuple[str, tuple[str, ...]], ...], bytes]


def key_of(api: str, recorded: RecordedResponse) -> Key:
    """What the SDK's object depends on: the api (which SDK call) and the recorded status, headers, body."""
    headers = tuple(sorted((name, tuple(values)) for name, values in recorded.headers.items()))
    return (api, recorded.status, headers, recorded.body)


class ParsedResponses:
    """SDK objects by the bytes they were parsed from; ``get`` returns a fresh copy each time."""

    def __init__(self, max_kept: int = MAX_KEPT) -> None:
        self.max_kept = max_kept
        self._kept: OrderedDict[Key, Any] = OrderedDict()

    def get(self, api: str, recorded: RecordedResponse, parse: Callable[[], Any]) -> Any:
        """A copy of the object ``parse()`` made for these bytes, calling it only the first time; an
        object that cannot be copied is parsed anew for every caller. ``parse``'s errors propagate and
        nothing is kept for them."""
        key = key_of(api, recorded)
        if key in self._kept:
            self._kept.move_to_end(key)
            try:
                return copy.deepcopy(self._kept[key])
            except Exception:
                del self._kept[key]
                return parse()
        parsed = parse()
        try:
            handed_out = copy.deepcopy(parsed)
        except Exception:
            return parsed
        self._kept[key] = parsed
        if len(self._kept) > self.max_kept:
            self._kept.popitem(last=False)
        return handed_out

    def __len__(self) -> int:
        return len(self._kept)
