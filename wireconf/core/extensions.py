"""Extensions installed by other packages: the objects they expose under a wireconf entry-point group.

Kinds (``wireconf.kinds``) and providers (``wireconf.providers``) are both records of one class that a
package outside this repository may add; loading them and refusing anything else is the same for both.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import entry_points
from typing import TypeVar

from wireconf.core.errors import ExtensionError

T = TypeVar("T")

HINT = "fix or uninstall the package that declares it"
"""What to do about an extension that breaks the harness's registries."""


def installed(group: str, record: type[T]) -> Iterator[T]:
    """Each object exposed under entry-point ``group``; an ``ExtensionError`` naming the entry point for
    one that does not load or is not a ``record``."""
    for entry in entry_points(group=group):
        try:
            found = entry.load()
        except Exception as exc:
            raise ExtensionError(
                f"entry point {group}: {entry.name} = {entry.value} failed to load: {exc!r}", hint=HINT
            ) from exc
        if not isinstance(found, record):
            raise ExtensionError(
                f"entry point {group}: {entry.name} = {entry.value} is {type(found).__name__}, "
                f"not a {record.__module__}.{record.__qualname__}",
                hint=HINT,
            )
        yield found
