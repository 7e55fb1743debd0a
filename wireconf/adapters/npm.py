"""Run npm for the builds of the Node.js runtimes (prompty-ts, ai-sdk), its output kept in a log."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from wireconf.errors import WireconfError


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
