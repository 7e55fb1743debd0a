"""Where ``--impl prompty-ts`` finds Node.js and a built Prompty TypeScript runtime, or why it cannot.

The runtime is a ``runtime/typescript`` folder of a microsoft/prompty checkout after ``npm ci && npm run
build`` (its ``packages/*/dist`` and ``node_modules``). It is found, in order:

1. ``WIRECONF_PROMPTY_TS=/path/to/runtime/typescript``;
2. the last build of ``wireconf prompty-ts build`` (``<cache>/prompty-ts/current`` names it).

The cache folder is ``WIRECONF_CACHE_DIR``, else ``.cache/`` at the root of a source checkout of
wireconf (gitignored), else ``~/.cache/wireconf``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from wireconf.adapters.npm import installed_folder
from wireconf.core.cache_dir import cache_root

RUNTIME_ENV = "WIRECONF_PROMPTY_TS"
PACKAGES = ("core", "openai", "anthropic", "foundry")
"""The workspace packages the server imports (foundry registers the ``azure`` provider)."""
NODE_HINT = "install Node.js >= 18 (Debian: apt-get install nodejs)"
BUILD_HINT = (
    "run `wireconf prompty-ts build <prompty checkout>/runtime/typescript` (or a .tar.gz of it), "
    f"or set {RUNTIME_ENV} to a built runtime/typescript folder"
)


def pointer_file() -> Path:
    """The file that names the last build of ``wireconf prompty-ts build``."""
    return cache_root() / "prompty-ts" / "current"


def missing_build_parts(root: Path) -> list[str]:
    """What a built ``runtime/typescript`` folder lacks (empty when it is complete)."""
    wanted = [Path("packages") / name / "dist" / "index.js" for name in PACKAGES]
    wanted += [Path("node_modules") / "openai", Path("node_modules") / "@anthropic-ai" / "sdk"]
    return [str(part) for part in wanted if not (root / part).exists()]


@dataclass(frozen=True)
class Located:
    node: str | None
    runtime: Path | None
    unavailable: str | None
    """One line: why the runtime cannot run here (``None`` when ``node`` and ``runtime`` are set)."""


def _incomplete(source: str, missing: list[str]) -> str:
    if missing == ["the folder"]:
        return f"{source} is not a folder: {BUILD_HINT}"
    return (
        f"{source} is not a built runtime/typescript folder ({', '.join(missing[:2])} missing): "
        "run `npm ci && npm run build` there, or `wireconf prompty-ts build <that folder>`"
    )


def _runtime() -> tuple[Path | None, str | None]:
    absent = f"no built Prompty TypeScript runtime found: {BUILD_HINT}"
    return installed_folder(RUNTIME_ENV, pointer_file(), missing_build_parts, absent, _incomplete)


def locate() -> Located:
    """Node and the runtime, or the reason (one line) why ``prompty-ts`` is unavailable."""
    node = shutil.which("node")
    if node is None:
        return Located(None, None, f"node (Node.js) is not on PATH: {NODE_HINT}")
    runtime, problem = _runtime()
    return Located(node, runtime, problem)
