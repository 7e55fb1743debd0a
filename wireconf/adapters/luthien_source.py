"""Find luthien-proxy's ``StreamProcessor`` in a checkout, without leaving the checkout's modules behind.

luthien-proxy is not on PyPI: a user points wireconf at a checkout's ``src`` folder with
``WIRECONF_LUTHIEN_SRC`` (or puts it on ``PYTHONPATH``). The class lives in
``luthien_proxy.v2.streaming.stream_processor`` and the package never re-exports it. At the commit that
introduced it (97480124) the package's ``__init__`` imports modules outside the streaming folder (a
server stack); when that import fails for that reason alone, the folder is loaded as a bare package
(without its ``__init__``) and the processor's own modules are imported from it, unchanged.

Each load imports the checkout afresh and takes its modules out of ``sys.modules`` again, so two
commits can be judged one after the other in the same process.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

SRC_VARIABLE = "WIRECONF_LUTHIEN_SRC"
PACKAGE = "luthien_proxy.v2.streaming"
MODULE = f"{PACKAGE}.stream_processor"
ENTRY = "StreamProcessor"
HINT = (
    f"luthien-proxy is not on PyPI: set {SRC_VARIABLE} to a checkout's src folder "
    "(and pip install 'wireconf[luthien]' for litellm)"
)


@dataclass(frozen=True)
class Found:
    """The processor class (None when unavailable), the version to report, and why it is unavailable."""

    processor: Any
    version: str
    unavailable: str | None


def _owned(name: str) -> bool:
    return name == "luthien_proxy" or name.startswith("luthien_proxy.")


def _commit(src: Path | None, module: ModuleType) -> str | None:
    """The checkout's commit: from a PROVENANCE file beside ``src`` (the copies in shared/third-party),
    else from git."""
    assert src is not None or module.__file__ is not None, "luthien's package is a folder with an __init__"
    root = src if src is not None else Path(str(module.__file__)).resolve().parents[3]
    provenance = root.parent / "PROVENANCE"
    if provenance.is_file():
        match = re.search(r"\b([0-9a-f]{40})\b", provenance.read_text(encoding="utf-8"))
        if match:
            return match.group(1)[:8]
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=8", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _import_bare_package() -> Any:
    """Import the processor with the streaming folder as a package whose ``__init__`` is not run."""
    for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
        del sys.modules[name]
    parent = importlib.import_module("luthien_proxy.v2")
    folder = Path(next(iter(parent.__path__))) / "streaming"
    package = types.ModuleType(PACKAGE)
    package.__path__ = [str(folder)]
    package.__package__ = PACKAGE
    sys.modules[PACKAGE] = package
    return importlib.import_module(MODULE)


def _import(src: Path | None) -> Any:
    try:
        return importlib.import_module(MODULE)
    except ImportError as exc:
        missing = getattr(exc, "name", None) or ""
        if not missing.startswith("luthien_proxy.") or missing.startswith(PACKAGE):
            raise
        return _import_bare_package()  # the package __init__ needs modules outside this copy


def find_processor(src: str | None = None) -> Found:
    """Import ``StreamProcessor`` from ``src`` (default: ``$WIRECONF_LUTHIEN_SRC``, else ``sys.path``)."""
    src = src if src is not None else os.environ.get(SRC_VARIABLE) or None
    root = Path(src).resolve() if src else None
    if root is not None and not (root / "luthien_proxy").is_dir():
        return Found(None, "not installed", f"{SRC_VARIABLE}={src} has no luthien_proxy package; {HINT}")
    saved = {name: sys.modules.pop(name) for name in [n for n in sys.modules if _owned(n)]}
    saved_path = list(sys.path)
    if root is not None:
        sys.path.insert(0, str(root))
    try:
        module = _import(root)
        processor = getattr(module, ENTRY, None)
        top = importlib.import_module("luthien_proxy")
    except Exception as exc:  # ImportError, or a module that fails while importing
        return Found(
            None, "not installed", f"{MODULE} is not importable ({type(exc).__name__}: {exc}); {HINT}"
        )
    finally:
        sys.path[:] = saved_path
        for name in [n for n in sys.modules if _owned(n)]:
            del sys.modules[name]
        sys.modules.update(saved)
    if processor is None:
        return Found(None, "not installed", f"{MODULE} has no {ENTRY} (this checkout predates or dropped it)")
    commit = _commit(root, module)
    version = str(getattr(top, "__version__", "unknown")) + (f"+{commit}" if commit else "")
    return Found(processor, version, None)
