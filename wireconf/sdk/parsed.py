"""The SDK objects already parsed from recorded bytes, so that the same bytes go through an SDK once.

A corpus hands the same recorded response to several cases (cases on one cassette interaction, the
second object a ``process`` case parses for ``process_async``, every mutant of ``wireconf strength``).
The SDK's request and parsing machinery costs about 1 ms per object. What is kept is the object
pickled: unpickling it costs about 30 µs (a deep copy about 100 µs) and gives an object equal to the
SDK's field for field (its class, fields, the fields the SDK set, its private attributes). Each caller
gets an object of its own, and nothing handed out is kept, so an adapter that mutates its input cannot
change another case's.
"""

from __future__ import annotations

import pickle
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from wireconf.cassettes.store import RecordedResponse
from wireconf.core.untyped import SDKObject

MAX_KEPT = 1024
"""Distinct responses kept per process (the project's corpus has about 150); the least recently used
one goes first."""

Key = tuple[str, int, tuple[tuple[str, tuple[str, ...]], ...], bytes]


def key_of(api: str, recorded: RecordedResponse) -> Key:
    """What the SDK's object depends on: the api (which SDK call) and the recorded status, headers, body."""
    return (api, recorded.status, recorded.headers_key, recorded.body)


def _pickled(parsed: SDKObject) -> bytes | None:
    """``parsed`` as bytes that unpickle to an equal object; ``None`` when it does not pickle (an object
    holding a lock or a live client), and then it is parsed anew for every caller."""
    try:
        return pickle.dumps(parsed, pickle.HIGHEST_PROTOCOL)
    except Exception:
        return None


class ParsedResponses:
    """SDK objects by the bytes they were parsed from; ``get`` returns a fresh object each time."""

    def __init__(self, max_kept: int = MAX_KEPT) -> None:
        self.max_kept = max_kept
        self._kept: OrderedDict[Key, bytes] = OrderedDict()

    def _keep(self, key: Key, parsed: SDKObject) -> None:
        blob = _pickled(parsed)
        if blob is None:
            return
        self._kept[key] = blob
        if len(self._kept) > self.max_kept:
            self._kept.popitem(last=False)

    def get(self, api: str, recorded: RecordedResponse, parse: Callable[[], Any]) -> SDKObject:
        """An object equal to the one ``parse()`` made for these bytes, calling it only the first time
        (that caller gets the object itself: only its pickled bytes are kept). ``parse``'s errors
        propagate and nothing is kept for them."""
        key = key_of(api, recorded)
        blob = self._kept.get(key)
        if blob is not None:
            self._kept.move_to_end(key)
            return pickle.loads(blob)
        parsed = parse()
        self._keep(key, parsed)
        return parsed

    def keep(self, api: str, recorded: RecordedResponse, parse: Callable[[], Any]) -> None:
        """Parse and keep the object for these bytes unless it is kept already (nothing is handed out):
        a warm-up before the first caller."""
        key = key_of(api, recorded)
        if key in self._kept:
            self._kept.move_to_end(key)
            return
        self._keep(key, parse())

    def __len__(self) -> int:
        return len(self._kept)
