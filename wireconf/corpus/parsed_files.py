"""The parsed YAML of a corpus's case files, kept between processes: parsing is most of collecting a
corpus (about 0.4 ms per case with libyaml, line tracking and the alias check), and every pytest
process parses the same files again (each xdist worker, each ``wireconf`` command, each run of the
project's tests).

One pickle per corpus root in the cache folder (``wireconf.core.cache_dir``) maps each case file to the
SHA-256 of its bytes and the pickled result of ``load_yaml`` on them; a file whose bytes differ (or
that failed to parse) is parsed again. The whole cache is for one version of the parser (this
package's ``yaml_source`` module, PyYAML and Python): any other is ignored and rewritten. Unpickling
returns a fresh copy each time, so no two loads share data. Writes are atomic (a temporary file
renamed over the old one), so concurrent xdist workers never read half a cache; a cache that cannot
be read or written is simply not used. Small corpora (test fixtures) are parsed without one.

Beside a file's parse, the cache keeps what the harness derives from the file alone and costs to work
out (``derived``: the problems the provider's contract finds in the requests its cases expect, about a
millisecond per request), each value under the caller's version of the computation and the file's
digest, so it is worked out once per change of either, not once per run.

The cache is not trusted blindly: anyone who can write the cache folder could plant a pickle that runs
code when loaded, or parsed data that changes a case's expectation. So the file is signed (HMAC-SHA256
with a key made once per machine, kept beside the caches, readable by its owner only) and a file
whose signature does not verify is ignored and rewritten; and it is read with an unpickler that
builds only what ``load_yaml`` makes (``LineDict``, the containers and scalars of safe YAML) and refuses
every other class or function, so that not even a signed file can run code. The limit: a process of
the same user can read the key (docs/ci.md says which mode to use for published results).
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import hmac
import os
import pickle
import secrets
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

import yaml

from wireconf.core import yaml_source
from wireconf.core.cache_dir import cache_root
from wireconf.core.safe_pickle import loads_only
from wireconf.core.untyped import YAML
from wireconf.core.yaml_source import YamlUnreadable, load_yaml, unicode_problem

T = TypeVar("T")

MIN_FILES = 50
"""Corpora with fewer case files are parsed without a cache (a few milliseconds; tests make many)."""

KEEP = 8
"""Cache files kept (one per corpus root, the most recently written)."""


def _parser_version() -> str:
    source = Path(yaml_source.__file__).read_bytes()
    return f"{hashlib.sha256(source).hexdigest()}:{yaml.__version__}:{sys.version}"


_SAFE = {
    ("wireconf.core.yaml_source", "LineDict"): yaml_source.LineDict,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "bytearray"): bytearray,
    ("datetime", "date"): datetime.date,
    ("datetime", "datetime"): datetime.datetime,
    ("datetime", "timedelta"): datetime.timedelta,
    ("datetime", "timezone"): datetime.timezone,
}
"""Every class a parsed case file holds besides what pickle spells without one (dicts, lists, tuples,
strings, bytes, numbers)."""


def safe_loads(data: bytes) -> YAML:
    """Unpickle ``data`` building nothing but parsed YAML (``pickle.UnpicklingError`` otherwise)."""
    return loads_only(data, _SAFE)


_SIGNATURE = 32


def _machine_key(folder: Path) -> bytes:
    """The key the caches in ``folder`` are signed with: made once, readable by its owner only."""
    path = folder / ".key"
    with contextlib.suppress(FileNotFoundError):
        key = path.read_bytes()
        if len(key) >= 32:
            return key
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".key-", suffix=".tmp")  # 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(32))
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)  # the first writer's key wins; the others read it
    finally:
        os.unlink(tmp)
    return path.read_bytes()


def _signed(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest() + data


def _verified(key: bytes, blob: bytes) -> bytes | None:
    signature, data = blob[:_SIGNATURE], blob[_SIGNATURE:]
    expected = hmac.new(key, data, hashlib.sha256).digest()
    return data if hmac.compare_digest(signature, expected) else None


class ParsedFiles:
    """``load(path)``: ``load_yaml`` of the file's text, from the cache when its bytes are the same."""

    def __init__(self, root: Path, files: int) -> None:
        self.path: Path | None = None
        self._entries: dict[str, tuple[bytes, bytes]] = {}
        self._derived: dict[tuple[str, str], tuple[bytes, str, bytes]] = {}
        """(file, name) → (the file's digest, the computation's version, the pickled value)."""
        self._values: dict[tuple[str, str], tuple[bytes, str, object]] = {}
        """The same, unpickled once in this process (a run asks each case's value once per item)."""
        self._digests: dict[str, bytes] = {}
        self._changed = False
        self._version = ""
        self._key = b""
        if files < MIN_FILES:
            return
        try:  # no home folder, no readable parser source, no key: no cache
            name = f"{hashlib.sha256(str(root).encode()).hexdigest()[:20]}.pickle"
            self._version = _parser_version()
            self.path = cache_root() / "parsed" / name
            self._key = _machine_key(self.path.parent)
        except (OSError, RuntimeError):
            self.path = None
            return
        with contextlib.suppress(Exception):  # a missing, unsigned, foreign or broken cache is no cache
            data = _verified(self._key, self.path.read_bytes())
            if data is None:
                self._changed = True  # rewritten, signed, at the end of this load
                return
            version, entries, derived = safe_loads(data)
            if version == self._version and isinstance(entries, dict) and isinstance(derived, dict):
                self._entries, self._derived = entries, derived

    def load(self, path: Path) -> YAML:
        """The parsed file; raises ``YamlSyntaxError`` as ``load_yaml_file`` does."""
        try:
            data = path.read_bytes()
            text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # as read_text does
        except UnicodeDecodeError as exc:  # said as load_yaml_file says it
            raise YamlUnreadable(unicode_problem(exc), 0) from exc
        except OSError as exc:
            raise YamlUnreadable(f"cannot read: {exc}", 0) from exc
        if self.path is None:
            return load_yaml(text)
        digest = hashlib.sha256(data).digest()
        key = str(path)
        self._digests[key] = digest
        cached = self._entries.get(key)
        if cached is not None and cached[0] == digest:
            with contextlib.suppress(Exception):  # not parsed YAML after all: parse the file
                return safe_loads(cached[1])
        parsed = load_yaml(text)
        self._entries[key] = (digest, pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL))
        self._changed = True
        return parsed

    def derived(self, path: Path, name: str, version: str, compute: Callable[[], T]) -> T:
        """``compute()``, a value worked out from the file ``path`` (loaded by ``load``) alone: kept under
        ``name`` for as long as the file's bytes and ``version`` stay the same. The value must be plain
        data (containers, strings, numbers): anything else is never read back; it is shared by every
        caller in the process, read-only."""
        key = str(path)
        digest = self._digests.get(key)
        if self.path is None or digest is None:
            return compute()
        known = self._values.get((key, name))
        if known is not None and known[0] == digest and known[1] == version:
            return cast(T, known[2])
        cached = self._derived.get((key, name))
        if cached is not None and cached[0] == digest and cached[1] == version:
            with contextlib.suppress(Exception):
                loaded = cast(T, safe_loads(cached[2]))  # what compute() returned, pickled
                self._values[(key, name)] = (digest, version, loaded)
                return loaded
        value = compute()
        self._values[(key, name)] = (digest, version, value)
        self._derived[(key, name)] = (digest, version, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
        self._changed = True
        return value

    def save(self, paths: list[Path]) -> None:
        """Write the cache if a file was parsed or a value derived anew, keeping only the entries of
        ``paths``."""
        if self.path is None or not self._changed:
            return
        self._changed = False
        keep = {str(p) for p in paths}
        entries = {key: value for key, value in self._entries.items() if key in keep}
        derived = {key: value for key, value in self._derived.items() if key[0] in keep}
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".parsed-", suffix=".tmp")
            data = pickle.dumps((self._version, entries, derived), protocol=pickle.HIGHEST_PROTOCOL)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(_signed(self._key, data))
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
