"""Import a runtime that may be missing, and say why when it is."""

from __future__ import annotations

import importlib
import importlib.metadata
from types import ModuleType


def optional_module(module: str, distribution: str, hint: str) -> tuple[ModuleType | None, str, str | None]:
    """``(module, version, unavailable)``: the module and its distribution's version, or None, a
    placeholder version and the reason it cannot be used (with how to install it)."""
    try:
        found = importlib.import_module(module)
    except Exception as exc:  # ImportError, or a package that fails while importing
        return None, "not installed", f"{module} is not importable ({type(exc).__name__}: {exc}); {hint}"
    try:
        version = importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        version = getattr(found, "__version__", "unknown")
    return found, version, None
