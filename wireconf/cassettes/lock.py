"""One writer per cassette at a time, across processes (overlapping runs, pytest-xdist workers).

``cassette_lock(path)`` holds an exclusive ``flock`` on ``.<name>.lock`` beside the cassette while a
writer reads the cassette, merges what it recorded and writes it atomically, so that two recordings
into one cassette keep both. The lock file is removed when the lock is released; a writer that
finds it was waiting on a removed file (its inode is no longer the path's) takes the lock again.

Holding the lock also makes orphan temporary files safe to delete: a writer keeps its temporary file
only while it holds the lock, so any ``.<name>.<random>.tmp`` seen under the lock was left by a write
that was killed. ``remove_orphans`` sweeps a whole folder at the start of a run, skipping cassettes
another process is writing right now. Where ``fcntl`` is missing (Windows) writes are not locked.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no locks where there is no fcntl


def _lock_path(path: Path) -> Path:
    return path.parent / f".{path.name}.lock"


def _orphans(path: Path) -> list[Path]:
    return list(path.parent.glob(f".{path.name}.*.tmp"))


def _acquire(path: Path, blocking: bool) -> int | None:
    """An open, locked descriptor of the cassette's lock file, or ``None`` (not blocking, busy)."""
    assert fcntl is not None
    lock = _lock_path(path)
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return None
        try:
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # the holder before us removed the file we waited on: lock the new one


def _release(path: Path, fd: int) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_lock_path(path))
    os.close(fd)  # closing releases the flock


@contextlib.contextmanager
def cassette_lock(path: Path) -> Iterator[None]:
    """Hold the cassette's lock inside the block (and remove orphan temporary files of it first)."""
    if fcntl is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _acquire(path, blocking=True)
    assert fd is not None
    try:
        for orphan in _orphans(path):
            with contextlib.suppress(FileNotFoundError):
                orphan.unlink()
        yield
    finally:
        _release(path, fd)


def remove_orphans(root: Path) -> list[Path]:
    """Delete the temporary files killed writes left under ``root``; the ones removed."""
    if fcntl is None or not root.is_dir():
        return []
    removed = []
    for tmp in root.rglob(".*.tmp"):
        cassette = tmp.parent / tmp.name[1:].rsplit(".", 2)[0]
        fd = _acquire(cassette, blocking=False)
        if fd is None:  # being written right now: its temporary file is not an orphan
            continue
        try:
            for orphan in _orphans(cassette):
                with contextlib.suppress(FileNotFoundError):
                    orphan.unlink()
                    removed.append(orphan)
        finally:
            _release(cassette, fd)
    return removed
