"""Install the Vercel AI SDK for ``--impl ai-sdk`` (``wireconf ai-sdk build``), and find the install.

The pinned versions are this folder's ``package.json`` and ``package-lock.json`` (``ai``,
``@ai-sdk/openai``, ``@ai-sdk/anthropic``, ``@ai-sdk/google``; they run on Node.js >= 18). The build
installs them from the npm registry with ``npm ci`` into ``<cache>/ai-sdk/<digest>/`` (the digest of
the lockfile and of the exec client), then unpacks the exec client's tarball (``@wireconf/exec``,
``wireconf exec-client --path``) into its ``node_modules``, as ``npm install <tarball>`` would: the
server imports both by their package names, as a maintainer's own project would. A build of the same
inputs is reused; the last one is named in ``<cache>/ai-sdk/current``.

The server's files (``server.mjs``, ``inputs.mjs``) are copied beside that ``node_modules`` into a
folder named after their digest when the adapter starts, so an edit to them needs no new install.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

from wireconf.adapters.npm import installed_folder, run_npm
from wireconf.cassettes.atomic import write_atomic
from wireconf.core.cache_dir import cache_root
from wireconf.core.errors import WireconfError
from wireconf.exec_protocol.js_client import tarball_bytes

HERE = Path(__file__).parent
MANIFESTS = ("package.json", "package-lock.json")
SERVER_FILES = ("server.mjs", "inputs.mjs")
PACKAGES = ("ai", "@ai-sdk/openai", "@ai-sdk/anthropic", "@ai-sdk/google", "@wireconf/exec")
BUILT_MARK = ".wireconf-built"
RUNTIME_ENV = "WIRECONF_AI_SDK"
BUILD_HINT = (
    f"run `wireconf ai-sdk build` (it installs the pinned AI SDK from the npm registry), or set {RUNTIME_ENV}"
)


class BuildError(WireconfError):
    """The AI SDK could not be installed; the message says which step failed and its last output lines."""


def _digest(parts: list[bytes]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:16]


def build_digest() -> str:
    """What an install depends on: the pinned manifests and the exec client."""
    return _digest([(HERE / name).read_bytes() for name in MANIFESTS] + [tarball_bytes()[1]])


def pointer_file(cache: Path | None = None) -> Path:
    return (cache or cache_root()) / "ai-sdk" / "current"


def missing_parts(root: Path) -> list[str]:
    """What an install folder lacks (empty when it is complete)."""
    return [name for name in PACKAGES if not (root / "node_modules" / name / "package.json").is_file()]


def _npm(args: list[str], cwd: Path, log: Path) -> None:
    run_npm(args, cwd, log, BuildError)


def _unpack_client(node_modules: Path) -> None:
    """The exec client's tarball into ``node_modules/@wireconf/exec`` (its ``package/`` folder)."""
    target = node_modules / "@wireconf" / "exec"
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(tarball_bytes()[1]), mode="r:gz") as archive:
        for member in archive.getmembers():
            relative = Path(member.name).relative_to("package")
            extracted = archive.extractfile(member)
            if extracted is None or ".." in relative.parts:
                continue
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            (target / relative).write_bytes(extracted.read())


def build(cache: Path | None = None) -> Path:
    """The install folder (with ``node_modules``), installed now or reused; it becomes ``--impl
    ai-sdk``'s."""
    folder = (cache or cache_root()) / "ai-sdk" / build_digest()
    if not (folder / BUILT_MARK).is_file() or missing_parts(folder):
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
        log = folder.parent / f"{folder.name}.build.log"
        log.write_text(f"installing the AI SDK in {staging}\n", encoding="utf-8")
        try:
            for name in MANIFESTS:
                shutil.copy2(HERE / name, staging / name)
            _npm(["ci", "--no-audit", "--no-fund"], staging, log)
            _unpack_client(staging / "node_modules")
            (staging / BUILT_MARK).write_text("built\n", encoding="utf-8")
            if folder.exists():  # an incomplete earlier install
                shutil.rmtree(folder, ignore_errors=True)
            try:
                os.rename(staging, folder)
            except OSError:  # another build finished first: keep it
                if missing_parts(folder):
                    raise
        finally:
            if staging.exists():
                with contextlib.suppress(OSError):
                    shutil.rmtree(staging)
    write_atomic(pointer_file(cache), f"{folder}\n")
    return folder


def installed() -> tuple[Path | None, str | None]:
    """The install folder ``--impl ai-sdk`` uses, or why there is none (one line)."""
    return installed_folder(
        RUNTIME_ENV,
        pointer_file(),
        missing_parts,
        absent=f"the AI SDK is not installed: {BUILD_HINT}",
        incomplete=lambda source, missing: f"{source} lacks {', '.join(missing[:2])}: {BUILD_HINT}",
    )


def server(root: Path) -> Path:
    """``server.mjs`` beside the install's ``node_modules`` (``<root>/server-<digest>/``), so that its
    imports resolve there; copied once per version of the server's files."""
    folder = root / f"server-{_digest([(HERE / name).read_bytes() for name in SERVER_FILES])}"
    if not (folder / SERVER_FILES[0]).is_file():
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=root))
        try:
            for name in SERVER_FILES:
                shutil.copy2(HERE / name, staging / name)
            with contextlib.suppress(OSError):  # another worker copied it first
                os.rename(staging, folder)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
    return folder / SERVER_FILES[0]
