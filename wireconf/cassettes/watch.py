"""Notices a runtime writing into the cassettes folder: the recorded evidence every later case (and the
next run) is judged on.

Linux's inotify reports every file created, written, moved or deleted under the folder; the harness
reads what happened after each case (one non-blocking read, a few microseconds) and makes that case
an error naming the files, leaving out what the harness itself recorded and its hidden lock and
temporary files. Where inotify is missing (another OS, no instance left), nothing is watched.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import struct
import sys
from pathlib import Path

_IN_MODIFY, _IN_MOVED_FROM, _IN_MOVED_TO = 0x2, 0x40, 0x80
_IN_CREATE, _IN_DELETE, _IN_ISDIR = 0x100, 0x200, 0x40000000
_MASK = _IN_MODIFY | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
_IN_NONBLOCK, _IN_CLOEXEC = os.O_NONBLOCK, getattr(os, "O_CLOEXEC", 0)
_EVENT = struct.Struct("iIII")


class CassetteWatch:
    """The changes under one folder since the last ``changes()``."""

    def __init__(self, root: Path, fd: int, libc: ctypes.CDLL) -> None:
        self.root = root
        self._fd = fd
        self._libc = libc
        self._dirs: dict[int, Path] = {}

    @classmethod
    def start(cls, root: Path) -> CassetteWatch | None:
        if not sys.platform.startswith("linux") or not root.is_dir():
            return None
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
            fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        except (OSError, AttributeError):
            return None
        if fd < 0:
            return None
        watch = cls(root, fd, libc)
        watch._add(root)
        for folder in root.rglob("*"):
            if folder.is_dir():
                watch._add(folder)
        return watch

    def _add(self, folder: Path) -> None:
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _MASK)
        if wd >= 0:
            self._dirs[wd] = folder

    def changes(self) -> set[Path]:
        """Files (not hidden ones) created, written, moved or deleted since the last call."""
        found: set[Path] = set()
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

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)
