"""The recorded response each SDK object handed to an adapter was parsed from.

An adapter in another language (``exec:`` protocol 2, ``inputs: recorded``) cannot use the Python SDK's
objects: it needs the recorded status, headers and body, so that *its* SDK parses them as it would a
live response. The harness remembers, for every SDK object it builds from a recording, that recording
(and, for a stream, the probe that serves its events, so that a remote runtime pulls the same counted
events and incremental processing stays visible).

Entries are held by weak reference: they go away with the SDK object.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from wireconf.cassettes.store import RecordedResponse
from wireconf.core.stream_probe import StreamProbe
from wireconf.core.untyped import SDKObject


@dataclass(frozen=True)
class Origin:
    """What an SDK object was parsed from: the recorded response and, for a stream, its probe."""

    recorded: RecordedResponse
    probe: StreamProbe | None = None


@dataclass(frozen=True)
class Unparsed(Origin):
    """A recorded response handed as it is, in place of the SDK object, to a runtime that parses its
    inputs itself (``exec:`` with ``inputs: recorded``): the harness then imports no SDK for it and has
    none parse the bytes (``wireconf.kinds.base.runtime_input``). It is its own origin."""


_ORIGINS: dict[int, tuple[weakref.ref[Any], Origin]] = {}


def remember(sdk_object: SDKObject, recorded: RecordedResponse, probe: StreamProbe | None = None) -> None:
    """Note that ``sdk_object`` was parsed from ``recorded`` (its events served by ``probe``)."""
    key = id(sdk_object)
    try:
        ref = weakref.ref(sdk_object, lambda _gone: _ORIGINS.pop(key, None))
    except TypeError:  # an object without weak references: not an SDK model; nothing to remember
        return
    _ORIGINS[key] = (ref, Origin(recorded, probe))


def origin_of(sdk_object: SDKObject) -> Origin | None:
    """The recording ``sdk_object`` was parsed from (an ``Unparsed`` input is its own), or ``None`` when
    the harness did not build it."""
    if isinstance(sdk_object, Unparsed):
        return sdk_object
    entry = _ORIGINS.get(id(sdk_object))
    if entry is None or entry[0]() is not sdk_object:
        return None
    return entry[1]
