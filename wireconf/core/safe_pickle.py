"""Unpickling bytes that someone else could have written, building only the classes named.

``pickle.loads`` runs whatever the bytes tell it to (any importable callable, with any arguments).
Where the bytes come from a file others can write (the parsed-corpus cache) or a process a runtime
shares (the case runner's pipe), ``loads_only`` lets through the plain data pickle spells without a
class (dicts, lists, tuples, strings, bytes, numbers) and the classes of ``allowed`` alone, as the
standard library's documentation advises ("Restricting Globals"); anything else is an
``UnpicklingError`` before it is built.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Mapping
from typing import Any


class _Restricted(pickle.Unpickler):
    _allowed: Mapping[tuple[str, str], Any]  # set after the C type's own __init__ (a Python one costs µs)

    def find_class(self, module: str, name: str) -> Any:
        found = self._allowed.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"{module}.{name} is not among the classes expected here")
        return found


def loads_only(data: bytes, allowed: Mapping[tuple[str, str], Any]) -> Any:
    """``pickle.loads(data)``, building no class but those of ``allowed`` (``(module, name)`` → class)."""
    unpickler = _Restricted(io.BytesIO(data))
    unpickler._allowed = allowed
    return unpickler.load()
