"""The parsed YAML of a corpus's case files, kept between processes: parsing is most of collecting a
corpus (about 0.4 ms per case with libyaml, line tracking and the alias check), and every pytest
process parses the same files again (each xdist worker, each ``wireconf`` command, each run of the
project's tests).

One pickle per corpus root in the cache folder (``harness.cache_dir``) maps each case file to the
SHA-256 of its bytes and the pickled result of ``load_yaml`` on them; a file whose bytes differ (or
that failed to parse) is parsed again. The whole cache is for one version of the parser (this
package's ``yaml_source`` module, PyYAML and Python): any other is ignored and rewritten. Unpickling
returns a fresh copy each time, so no two loads share data. Writes are atomic (a temporary file
renamed over the old one), so concurrent xdist workers never read half a cache; a cache that cannot
be read or written is simply not used. Small corpora (test fixtures) are parsed without one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from harness.cache_dir import cache_root
from harness.corpus import yaml_source
from harness.corpus.yaml_source import YamlSyntaxError, load_yaml

MIN_FILES = 50
"""Corpora with fewer case files are parsed without a cache (a few milliseconds; tests make many)."""

KEEP = 8
"""Cache files kept (one per corpus root, the most recently written)."""


def _parser_version() -> str:
    source = Path(yaml_source.__file__).read_bytes()
    return f"{hashlib.sha256(source).hexdigest()}:{yaml.__version__}:{sys.version}"


class ParsedFiles:
    """``load(path)``: ``load_yaml`` of the file's text, from the cache when its bytes are the same."""

    def __init__(self, root: Path, files: int) -> None:
        self.path: Path | None = None
        self._entries: dict[str, tuple[bytes, bytes]] = {}
        self._changed = False
        self._version = ""
        if files < MIN_FILES:
            return
        try:  # no home folder, no readable parser source: no cache
            name = f"{hashlib.sha256(str(root).encode()).hexdigest()[:20]}.pickle"
            self._version = _parser_version()
            self.path = cache_root() / "parsed" / name
        except (OSError, RuntimeError):
            return
        with contextlib.suppress(Exception):  # a missing, foreign or broken cache is no cache
            with self.path.open("rb") as handle:
                version, entries = pickle.load(handle)
            if version == self._version and isinstance(entries, dict):
                self._entries = entries

    def load(self, path: Path) -> Any:
        """The parsed file; raises ``YamlSyntaxError`` as ``load_yaml_file`` does."""
        try:
            data = path.read_bytes()
            text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as read_text does
        except (OSError, UnicodeDecodeError) as exc:
            raise YamlSyntaxError(f"cannot read: {exc}", 0) from exc
        if self.path is None:
            return load_yaml(text)
        digest = hashlib.sha256(data).digest()
        key = str(path)
        cached = self._entries.get(key)
        if cached is not None and cached[0] == digest:
            return pickle.loads(cached[1])
        parsed = load_yaml(text)
        self._entries[key] = (digest, pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL))
        self._changed = True
        return parsed

    def save(self, paths: list[Path]) -> None:
        """Write the cache if a file was parsed anew, keeping only the entries of ``paths``."""
        if self.path is None or not self._changed:
            return
        keep = {str(p) for p in paths}
        entries = {key: value for key, value in self._entries.items() if key in keep}
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".parsed-", suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as handle:
                    pickle.dump((self._version, entries), handle, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, self.path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
            _prune(self.path.parent)


def _prune(folder: Path) -> None:
    """Keep the ``KEEP`` most recently written caches."""
    caches = sorted(folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in caches[KEEP:]:
        with contextlib.suppress(OSError):
            old.unlink()
