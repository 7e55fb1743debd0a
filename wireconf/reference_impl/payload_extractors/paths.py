"""Dotted field paths over JSON payloads (seed 003: "dotted paths (with numeric list indices)")."""

from __future__ import annotations

from typing import Any

_MISSING = object()


def resolve_path(data: Any, path: str) -> Any:
    """The value at ``path`` (``a.0.b``: key ``a``, list index 0, key ``b``), or None when any step misses."""
    current = data
    for segment in path.split(".") if path else ():
        if isinstance(current, dict):
            current = current.get(segment, _MISSING)
        elif isinstance(current, list) and segment.isdigit() and int(segment) < len(current):
            current = current[int(segment)]
        else:
            return None
        if current is _MISSING:
            return None
    return current


def resolve_first(data: Any, paths: tuple[str, ...]) -> Any:
    """The first hit among candidate paths, tried in order; a null value is no hit."""
    for path in paths:
        value = resolve_path(data, path)
        if value is not None:
            return value
    return None
