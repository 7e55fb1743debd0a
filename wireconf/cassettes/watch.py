"""Notices a runtime writing into the cassettes folder: the recorded evidence every later case (and the
next run) is judged on.

Linux's inotify reports every file created, written, moved or deleted under the folder; the harness
reads what happened after each case (one non-blocking read, a few microseconds) and says who did it
(``CassetteWatch.look``), leaving out its hidden lock and temporary files:

- **the harness's recording of this case**: the cassettes the case recorded. Not an error.
- **the runtime, from its sandbox**: a file the process that ran the case opened for writing, moved,
  removed or made while the case ran. Python's audit hooks (PEP 578, ``sys.addaudithook``, added once
  per process and idle between cases) report every such call of the process's Python code, whichever
  thread or library makes it. An error of that case.
- **another wireconf process** (an xdist worker, another run recording into the same checkout): every
  cassette wireconf writes is announced first, under the cassette's lock, in a ledger of the cache
  folder (``announce``: the file, the SHA-256 of the bytes about to be written, the writer's pid); a
  change whose file now holds announced bytes is that writer's. Not an error: each process keeps its
  own writes.
- **nobody it knows** (an editor, a checkout, a runtime's subprocess or C code, which no audit hook
  sees): an error of the run (``wireconf.pytest_plugin.corpus_guard`` fails it, naming the files and
  the case that was running), never a verdict on that case.

The limits: inotify says what changed, not who changed it, so the attribution rests on what the
harness's processes report. A runtime that wants to hide a write can announce it in the ledger, as any
process of the same user can (it is then taken for another wireconf process's), or reach into the
harness's state in its own process; what this catches is a runtime that writes the evidence without
hiding it, and what it never does is blame a case for another process's write. A write the audit
cannot place (``os.open`` of a name relative to a folder's descriptor: its event names no folder) is
taken for nobody's. Where inotify is missing (another OS, no instance left), nothing is watched.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import select
import struct
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wireconf.core.cache_dir import cache_root

_IN_MODIFY, _IN_MOVED_FROM, _IN_MOVED_TO = 0x2, 0x40, 0x80
_IN_CREATE, _IN_DELETE, _IN_ISDIR = 0x100, 0x200, 0x40000000
_MASK = _IN_MODIFY | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
_IN_NONBLOCK, _IN_CLOEXEC = os.O_NONBLOCK, getattr(os, "O_CLOEXEC", 0)
_EVENT = struct.Struct("iIII")


# --- what this process's own code writes: the audit hook ----------------------------------------------

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_PATH_EVENTS = {
    # event → the positions of its path arguments, and of the dir_fd each is relative to (None: none)
    "os.rename": ((0, 2), (1, 3)),  # os.rename and os.replace
    "os.remove": ((0, 1),),  # os.remove and os.unlink
    "os.rmdir": ((0, 1),),
    "os.mkdir": ((0, 2),),
    "os.link": ((1, 3),),
    "os.symlink": ((1, 2),),
    "os.truncate": ((0, None),),
    "shutil.copyfile": ((1, None),),
    "shutil.move": ((0, None), (1, None)),
    "shutil.rmtree": ((0, 1),),
}


class _Audit:
    """The paths this process's Python code wrote to (opened for writing, moved, removed, made) while
    ``written`` is collecting; hooked once per process (audit hooks cannot be removed), idle otherwise."""

    def __init__(self) -> None:
        self.written: list[str] | None = None
        self._hooked = False
        self._watches = 0

    def start(self) -> None:
        """Collect (one more watch wants it)."""
        if not self._hooked:
            sys.addaudithook(self._hook)
            self._hooked = True
        self._watches += 1
        if self.written is None:
            self.written = []

    def take(self) -> list[str]:
        """The paths written since the last ``take`` (absolute, as the code named them)."""
        taken = self.written or []
        if self.written is not None:
            self.written = []
        return taken

    def stop(self) -> None:
        """One watch less; idle when none is left."""
        self._watches = max(0, self._watches - 1)
        if not self._watches:
            self.written = None

    def _hook(self, event: str, args: tuple[Any, ...]) -> None:
        written = self.written
        if written is None:
            return
        if event == "open":
            path, mode, flags = args
            if isinstance(mode, str):
                if not any(c in mode for c in "wax+"):
                    return
            elif not (isinstance(flags, int) and flags & _WRITE_FLAGS):
                return
            _note(written, path, None)
            return
        positions = _PATH_EVENTS.get(event)
        if positions is None:
            return
        for at, fd_at in positions:
            if at < len(args):
                _note(written, args[at], args[fd_at] if fd_at is not None and fd_at < len(args) else None)


def _note(written: list[str], path: Any, dir_fd: Any) -> None:
    """``path`` (as an audit event gives it: str, bytes, path-like, a descriptor) made absolute."""
    try:
        if isinstance(path, int):
            written.append(os.readlink(f"/proc/self/fd/{path}"))
            return
        name = os.fsdecode(os.fspath(path))
        if isinstance(dir_fd, int) and not os.path.isabs(name):
            name = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), name)
        written.append(os.path.abspath(name))
    except (OSError, TypeError, ValueError):
        return


AUDIT = _Audit()


# --- what other wireconf processes write: the ledger --------------------------------------------------

LEDGER_NAME = "cassette-writes.jsonl"
LEDGER_MAX_BYTES = 1 << 20
"""A ledger larger than this is moved aside (``.1``) by the next writer and a new one started."""
_READ_BACK = 1 << 16
"""How far before its end a new watch starts reading the ledger: a write announced just before the
watch started may land just after."""


def ledger_path() -> Path:
    return cache_root() / LEDGER_NAME


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def announce(path: Path, text: str) -> None:
    """Tell the watches of every wireconf process that this one writes ``text`` to ``path`` now (called
    under the cassette's lock, before the write). Best effort: a ledger that cannot be written leaves
    the write to be taken for nobody's, which fails a concurrent run loudly, never silently."""
    entry = {"path": os.path.realpath(path), "sha256": digest(text.encode("utf-8")), "pid": os.getpid()}
    line = (json.dumps(entry) + "\n").encode("utf-8")
    ledger = ledger_path()
    with contextlib.suppress(OSError):
        ledger.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            if ledger.stat().st_size > LEDGER_MAX_BYTES:
                os.replace(ledger, ledger.with_name(LEDGER_NAME + ".1"))
        fd = os.open(ledger, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _IN_CLOEXEC, 0o600)
        try:
            os.write(fd, line)  # one write of an appended line: never interleaved with another's
        finally:
            os.close(fd)


class _LedgerReader:
    """The ledger's entries since this reader started, by file; follows the file when a writer moves
    it aside."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.announced: dict[str, set[str]] = {}
        self._fd: int | None = None
        self._pending = b""
        self._open(back=_READ_BACK)

    def _open(self, back: int | None) -> None:
        """Open the ledger at ``back`` bytes before its end (``None``: at its start)."""
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDONLY | os.O_CREAT | _IN_CLOEXEC, 0o600)
            size = os.fstat(fd).st_size
            start = 0 if back is None else max(0, size - back)
            os.lseek(fd, start, os.SEEK_SET)
            self._pending = b"\0" if start else b""  # a line cut by the seek is dropped
            self._fd = fd

    def _drain(self) -> None:
        assert self._fd is not None
        while chunk := os.read(self._fd, 1 << 16):
            data = self._pending + chunk
            lines = data.split(b"\n")
            self._pending = lines.pop()
            for line in lines:
                self._take(line)

    def _take(self, line: bytes) -> None:
        if line.startswith(b"\0"):
            return
        try:
            entry = json.loads(line)
            self.announced.setdefault(str(entry["path"]), set()).add(str(entry["sha256"]))
        except (ValueError, KeyError, TypeError):
            return

    def read(self) -> dict[str, set[str]]:
        """Every announcement read so far: path → the digests announced for it."""
        if self._fd is None:
            self._open(back=None)
        if self._fd is None:
            return self.announced
        with contextlib.suppress(OSError):
            self._drain()
            moved = os.stat(self.path).st_ino != os.fstat(self._fd).st_ino
            if moved:  # a writer moved it aside: what is left of the old one, then the new one whole
                self._drain()
                os.close(self._fd)
                self._fd = None
                self._open(back=None)
                if self._fd is not None:
                    self._drain()
        return self.announced

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None


# --- who changed what ----------------------------------------------------------------------------------


@dataclass
class Look:
    """What changed in the watched folder since the last look, by who did it (paths as strings)."""

    runtime: list[str] = field(default_factory=list)
    """Written by the process that ran the case, not as the harness's recording: the runtime's."""
    unknown: list[str] = field(default_factory=list)
    """Written by no process the harness knows: an error of the run."""


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def attribute(
    changed: Iterable[str],
    recorded: Iterable[str],
    written: Iterable[str],
    announced: Callable[[], dict[str, set[str]]],
    digest_of: Callable[[str], str | None],
) -> Look:
    """Who made each change (all paths resolved): the harness's recording of the case (``recorded``), the
    code of the process that ran it (``written``, its audit), another wireconf process (``announced``:
    the file now holds bytes some process announced, or a folder holds a file announced), or nobody the
    harness knows. ``digest_of(path)``: the SHA-256 of the file's bytes now (``None``: no file)."""
    look = Look()
    recorded, written = set(recorded), set(written)
    for path in sorted(set(changed)):
        if any(_under(r, path) for r in recorded):
            continue
        if any(_under(w, path) for w in written):
            look.runtime.append(path)
            continue
        known = announced()
        hashes = known.get(path)
        if hashes is not None:
            if digest_of(path) in hashes:
                continue
        elif any(_under(a, path) for a in known):  # a folder a wireconf process wrote into
            continue
        look.unknown.append(path)
    return look


def _digest_of(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


class CassetteWatch:
    """The changes under one folder since the last look, and who made them."""

    def __init__(self, root: Path, fd: int, libc: ctypes.CDLL) -> None:
        self.root = root
        self._fd = fd
        self._libc = libc
        self._dirs: dict[int, Path] = {}
        self._ledger: _LedgerReader | None = None
        self._ready = select.poll()  # asked after every case: no event is one system call, no exception
        self._ready.register(fd, select.POLLIN)

    @classmethod
    def start(cls, root: Path) -> CassetteWatch | None:
        if not sys.platform.startswith("linux") or not root.is_dir():
            return None
        try:
            # the symbols already loaded (libc's among them): ``find_library`` runs ``ldconfig`` as a
            # child, some 3 ms of every runner process's first case (``netns._libc`` does the same)
            libc = ctypes.CDLL(None, use_errno=True)
            fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        except (OSError, AttributeError):
            return None
        if fd < 0:
            return None
        watch = cls(root, fd, libc)
        folders = [root]
        while folders:  # every folder under it, read with scandir (no stat per plain file)
            folder = folders.pop()
            watch._add(folder)
            with contextlib.suppress(OSError), os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(Path(entry.path))
                    elif entry.is_symlink() and entry.is_dir():  # a linked folder: watched, not walked
                        watch._add(Path(entry.path))
        watch._ledger = _LedgerReader(ledger_path())
        AUDIT.start()
        return watch

    def _add(self, folder: Path) -> None:
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _MASK)
        if wd >= 0:
            self._dirs[wd] = folder

    def changes(self) -> set[Path]:
        """Files (not hidden ones) created, written, moved or deleted since the last call."""
        found: set[Path] = set()
        if not self._ready.poll(0):
            return found
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return found
            except OSError:
                return found
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, offset)
                name = data[offset + _EVENT.size : offset + _EVENT.size + length].rstrip(b"\0")
                offset += _EVENT.size + length
                folder = self._dirs.get(wd)
                if folder is None or not name:
                    continue
                path = folder / os.fsdecode(name)
                if mask & _IN_ISDIR and mask & (_IN_CREATE | _IN_MOVED_TO):
                    self._add(path)
                if not path.name.startswith("."):
                    found.add(path)

    def look(self, recorded: Iterable[str]) -> Look:
        """What changed since the last look, by who did it (``attribute``); ``recorded``: the cassettes
        the harness recorded meanwhile in this process. Starts the next look's audit."""
        changed = self.changes()
        written = AUDIT.take()
        if not changed:
            return Look()
        ledger = self._ledger
        return attribute(
            (os.path.realpath(p) for p in changed),
            (os.path.realpath(p) for p in recorded),
            (os.path.realpath(p) for p in written),
            ledger.read if ledger is not None else dict,
            _digest_of,
        )

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)
        if self._ledger is not None:
            self._ledger.close()
        AUDIT.stop()
