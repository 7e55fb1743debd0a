"""What each file of a corpus held when the run started: its SHA-256 and what the kernel says of it
(inode, size, modification and change times), taken in ``pytest_configure`` before an ``exec:``
runtime is started early, so that nothing the runtime does can precede the first hashing
(``wireconf.pytest_plugin.corpus_guard`` compares at collection and at the session's end).

A file rewritten and restored before a later hashing has the same bytes again, but not the same
change time (``st_ctime``: the kernel sets it on every write, rename or ``utime``, and no process
without ``CAP_SYS_TIME`` can set it back), so a comparison names it too. The comparison at collection
is by ``stat`` alone (a file whose state moved is hashed again to say how): one ``stat`` per file,
about a fifth of hashing the corpus; the one at the session's end hashes every file again, as it
always did, against timestamps a file system may keep coarsely.

Standard library only (and pytest's stash): the plugin takes the snapshot before the harness loads.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

CORPUS_MARK = "rules.yaml"
"""The file that makes a folder a corpus's root (``wireconf.corpus.rules.RULES_FILE``)."""


@dataclass(frozen=True)
class FileState:
    digest: str
    inode: int
    size: int
    modified: int
    changed: int
    """``st_ctime_ns``: moved by every write, rename, ``chmod`` or ``utime`` of the file."""

    def same_inode_state(self, other: FileState) -> bool:
        return (self.inode, self.size, self.modified, self.changed) == (
            other.inode,
            other.size,
            other.modified,
            other.changed,
        )


Snapshot = dict[str, FileState]
"""A corpus's files, by their path relative to its root."""

SNAPSHOTS = pytest.StashKey[dict[Path, Snapshot]]()
"""The corpora of the command line, taken in ``pytest_configure`` (``take_at_start``)."""


def corpus_root(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` holding ``rules.yaml`` (``corpus.loader.find_corpus_root``),
    resolved; ``None`` for a path that does not exist or lies in no corpus."""
    try:
        if not path.exists():
            return None
        path = path.resolve()
        for folder in [path, *path.parents] if path.is_dir() else list(path.parents):
            if (folder / CORPUS_MARK).is_file():
                return folder
    except OSError:
        return None
    return None


def _files(root: Path) -> list[tuple[str, os.DirEntry[str]]]:
    """Every regular file under ``root`` (symlinks neither followed nor listed), by relative path.
    ``scandir``'s entries say what they are without a ``stat`` each."""
    found: list[tuple[str, os.DirEntry[str]]] = []
    folders = [(str(root), "")]
    while folders:
        folder, prefix = folders.pop()
        with os.scandir(folder) as entries:
            for entry in entries:
                name = f"{prefix}{entry.name}"
                if entry.is_dir(follow_symlinks=False):
                    folders.append((entry.path, f"{name}/"))
                elif entry.is_file(follow_symlinks=False):
                    found.append((name, entry))
    return found


def _hashed(path: str) -> FileState:
    with open(path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
        st = os.fstat(handle.fileno())
    return FileState(digest, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def take(root: Path) -> Snapshot:
    """Every file under ``root``, hashed."""
    return {name: _hashed(entry.path) for name, entry in _files(root)}


def restat(root: Path, before: Snapshot) -> Snapshot:
    """Every file under ``root`` now, hashed only where its ``stat`` moved since ``before`` (or it is
    new): what is unchanged keeps ``before``'s digest."""
    now: Snapshot = {}
    for name, entry in _files(root):
        known = before.get(name)
        if known is not None:
            st = entry.stat(follow_symlinks=False)
            state = FileState(known.digest, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            if state.same_inode_state(known):
                now[name] = known
                continue
        now[name] = _hashed(entry.path)
    return now


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """``path (changed|removed|added|rewritten: …)`` for every difference between two snapshots; a
    file with its first bytes again but written in between is ``rewritten``."""
    found = []
    for name, state in before.items():
        now = after.get(name)
        if now is None:
            found.append(f"{name} (removed)")
        elif now.digest != state.digest:
            found.append(f"{name} (changed)")
        elif not now.same_inode_state(state):
            found.append(f"{name} (rewritten: its bytes are the same again, but it was written or replaced)")
    found += [f"{name} (added)" for name in after if name not in before]
    return sorted(found)


def take_at_start(config: pytest.Config, roots: list[Path]) -> None:
    """Snapshot ``roots`` (the corpora of the command line) into ``config``'s stash."""
    snapshots = config.stash.setdefault(SNAPSHOTS, {})
    for root in roots:
        if root not in snapshots:
            snapshots[root] = take(root)
