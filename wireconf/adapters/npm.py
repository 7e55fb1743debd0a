"""npm for the builds of the Node.js runtimes (prompty-ts, ai-sdk), its output kept in a log, and the
install folder each runtime uses (the one a variable names, else its last build's)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from wireconf.core.errors import WireconfError


def run_npm(args: list[str], cwd: Path, log: Path, error: type[WireconfError]) -> None:
    """``npm ARGS`` in ``cwd``, appending its output to ``log``; ``error`` (the build's own error class)
    when npm is missing or fails, with the step and the log's last lines."""
    npm = shutil.which("npm")
    if npm is None:
        raise error("npm is not on PATH (it comes with Node.js; Debian: apt-get install npm)")
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ npm {' '.join(args)}\n")
        out.flush()
        done = subprocess.run([npm, *args], cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:]
        raise error(f"npm {' '.join(args)} failed in {cwd} (log {log}):\n  " + "\n  ".join(tail))


def installed_folder(
    variable: str,
    pointer: Path,
    missing_parts: Callable[[Path], list[str]],
    absent: str,
    incomplete: Callable[[str, list[str]], str],
) -> tuple[Path | None, str | None]:
    """The install folder a Node.js runtime uses: the one ``$variable`` names, else the one its last build
    wrote into ``pointer``; or why there is none (one line): ``absent`` when neither is set,
    ``incomplete(source, missing)`` when the folder lacks ``missing_parts`` (``["the folder"]`` when it is
    not one)."""
    configured = os.environ.get(variable)
    if configured:
        root, source = Path(configured), f"{variable}={configured}"
    elif pointer.is_file():
        root, source = Path(pointer.read_text(encoding="utf-8").strip()), f"the last build ({pointer})"
    else:
        return None, absent
    missing = missing_parts(root) if root.is_dir() else ["the folder"]
    return (None, incomplete(source, missing)) if missing else (root, None)
