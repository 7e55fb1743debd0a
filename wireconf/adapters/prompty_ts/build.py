"""Build Prompty's TypeScript runtime for ``--impl prompty-ts``: from a checkout's ``runtime/typescript``
folder or from a ``.tar.gz`` of one (``../shared/third-party/prompty-75e4d0e5/typescript-runtime.tar.gz``).

The source is copied into the cache (``locate.cache_root()/prompty-ts/<digest of the source>/``) and
built there with the runtime's own lockfile (``npm ci``, so the SDK versions are the ones it pins) and
its own build (``npm run build``); the source tree is never written to. A build of the same source is
reused. The last build is recorded in ``<cache>/prompty-ts/current``, where ``--impl prompty-ts`` looks.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

from wireconf.adapters.npm import run_npm
from wireconf.adapters.prompty_ts.locate import missing_build_parts, pointer_file
from wireconf.cassettes.atomic import write_atomic
from wireconf.core.cache_dir import cache_root
from wireconf.core.errors import WireconfError

SKIPPED = {"node_modules", "dist", ".git", ".turbo", "coverage"}
"""Folders of a checkout that are build output or not source: never copied, never hashed."""
BUILT_MARK = ".wireconf-built"


class BuildError(WireconfError):
    """The runtime could not be built; the message says which step failed and its last output lines."""


def _source_files(folder: Path) -> list[Path]:
    files = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if path.is_file() and not SKIPPED.intersection(relative.parts):
            files.append(relative)
    return files


def source_digest(source: Path) -> str:
    """A digest of the source: the archive's bytes, or every source file's path and bytes."""
    digest = hashlib.sha256()
    if source.is_file():
        digest.update(source.read_bytes())
    else:
        for relative in _source_files(source):
            digest.update(str(relative).encode() + b"\0" + (source / relative).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _workspace(folder: Path) -> Path:
    """The ``runtime/typescript`` folder under ``folder`` (the one whose packages include core)."""
    if (folder / "packages" / "core" / "package.json").is_file():
        return folder
    for candidate in sorted(folder.rglob("packages/core/package.json")):
        if "node_modules" not in candidate.parts:
            return candidate.parents[2]
    raise BuildError(f"{folder}: no runtime/typescript folder (with packages/core) inside")


def _unpack(source: Path, into: Path) -> Path:
    if source.is_file():
        with tarfile.open(source, "r:*") as archive:
            if hasattr(tarfile, "data_filter"):  # refuse links and paths that leave `into`
                archive.extractall(into, filter="data")
            else:  # Python < 3.11.4
                archive.extractall(into)
        return _workspace(into)
    workspace = _workspace(source)
    for relative in _source_files(workspace):
        target = into / "runtime" / "typescript" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(workspace / relative, target)
    return into / "runtime" / "typescript"


def _npm(args: list[str], cwd: Path, log: Path) -> None:
    run_npm(args, cwd, log, BuildError)


def build(source: Path, cache: Path | None = None, log: Path | None = None) -> Path:
    """The built ``runtime/typescript`` folder for ``source`` (a checkout folder or a .tar.gz), built
    now or reused; it also becomes the default runtime of ``--impl prompty-ts``."""
    source = source.resolve()
    if not source.exists():
        raise BuildError(f"{source} does not exist")
    folder = (cache or cache_root()) / "prompty-ts" / source_digest(source)
    built = _find_built(folder)
    if built is None:
        built = _build_into(source, folder, log)
    write_atomic(pointer_file() if cache is None else cache / "prompty-ts" / "current", f"{built}\n")
    return built


def existing_build(source: Path, cache: Path | None = None) -> Path | None:
    """The build of ``source`` made earlier, if there is one: what ``build`` would reuse without npm."""
    source = source.resolve()
    if not source.exists():
        return None
    return _find_built((cache or cache_root()) / "prompty-ts" / source_digest(source))


def _find_built(folder: Path) -> Path | None:
    mark = folder / BUILT_MARK
    if not mark.is_file():
        return None
    root = Path(mark.read_text(encoding="utf-8").strip())
    return root if root.is_dir() and not missing_build_parts(root) else None


def _build_into(source: Path, folder: Path, log: Path | None) -> Path:
    """Unpack and build in a fresh folder beside ``folder``, then rename it into place, so that a
    half-done build is never found (and two builds at once both end with one complete folder)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    log = log or folder.parent / f"{folder.name}.build.log"
    log.write_text(f"building {source} in {staging}\n", encoding="utf-8")
    try:
        workspace = _unpack(source, staging)
        _npm(["ci", "--no-audit", "--no-fund"], workspace, log)
        _npm(["run", "build"], workspace, log)
        missing = missing_build_parts(workspace)
        if missing:
            raise BuildError(f"the build in {workspace} did not produce {', '.join(missing)}")
        final = folder / workspace.relative_to(staging)
        (staging / BUILT_MARK).write_text(f"{final}\n", encoding="utf-8")
        try:
            os.rename(staging, folder)
        except OSError:  # another build finished first: keep it
            if _find_built(folder) is None:
                raise
        return final
    finally:
        if staging.exists():
            with contextlib.suppress(OSError):
                shutil.rmtree(staging)
