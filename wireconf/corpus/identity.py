"""What a run was judged against: the corpus's declared version and a hash of its content, and a
fingerprint per case.

The version (``corpus.version`` in ``rules.yaml``) is what people read; the hash says whether two runs
saw the same files even when someone forgot to bump the version or edited a local copy. A case's
fingerprint covers what decides its verdict (the case as parsed, the cassettes and data files it
names), so a baseline can tell a case that changed since it was written from one that did not.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from wireconf.cassettes.store import CassetteError, CassetteStore
from wireconf.core.untyped import JSON
from wireconf.corpus.data_paths import resolve_agent_paths
from wireconf.corpus.loader import LoadedCase
from wireconf.corpus.model import CaseBase
from wireconf.corpus.rules import RULES_FILE, VERSION_PATTERN

HASH_PREFIX = "sha256:"
HASH_CHARS = 16  # 64 bits: enough to tell two corpora apart, short enough for every report line
FINGERPRINT_CHARS = 10


@dataclass(frozen=True)
class CorpusIdentity:
    version: str | None  # None: the corpus declares no version (a local corpus)
    hash: str  # "sha256:<16 hex>"

    @property
    def label(self) -> str:
        return f"{self.version or 'unversioned'} ({self.hash})"

    def __str__(self) -> str:
        return self.label


def _content_files(folder: Path) -> Iterator[Path]:
    """Every file under ``folder`` but caches and hidden files (pip compiles ``.py`` data on install)."""
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).parts
        if (
            path.is_file()
            and path.suffix != ".pyc"
            and not any(p == "__pycache__" or p.startswith(".") for p in rel)
        ):
            yield path


def _digest(chunks: Iterable[bytes]) -> str:
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(len(chunk).to_bytes(8, "big"))
        digest.update(chunk)
    return digest.hexdigest()


def _normalised(path: Path) -> bytes:
    """The file's bytes with CRLF line ends read as LF, so a checkout on Windows hashes the same."""
    return path.read_bytes().replace(b"\r\n", b"\n")


def corpus_hash(root: Path, cassettes: Path | None) -> str:
    """The hash of every file of the corpus (``root``) and of its cassettes folder."""

    def chunks() -> Iterator[bytes]:
        for tag, folder in (("cases", root), ("cassettes", cassettes)):
            if folder is None or not folder.is_dir():
                continue
            for path in _content_files(folder):
                yield f"{tag}/{path.relative_to(folder).as_posix()}".encode()
                yield _normalised(path)

    return HASH_PREFIX + _digest(chunks())[:HASH_CHARS]


_CORPUS_BLOCK = re.compile(r"^corpus:.*(?:\n(?:[ \t].*|#.*|))*", re.M)


def declared_version(rules_file: Path) -> str | None:
    """``corpus.version`` of ``rules.yaml``, read without parsing the whole catalogue (the header of every
    run needs it; ``wireconf lint`` reports a malformed one)."""
    try:
        match = _CORPUS_BLOCK.search(rules_file.read_text(encoding="utf-8"))
        block = yaml.safe_load(match.group(0)) if match else None
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    corpus = block.get("corpus") if isinstance(block, dict) else None
    version = corpus.get("version") if isinstance(corpus, dict) else None
    return version if isinstance(version, str) and VERSION_PATTERN.match(version) else None


def corpus_identity(root: Path, cassettes: Path | None = None) -> CorpusIdentity:
    """The identity of the corpus under ``root`` (cassettes default to the folder beside it)."""
    cassettes = root.parent / "cassettes" if cassettes is None else cassettes
    return CorpusIdentity(declared_version(root / RULES_FILE), corpus_hash(root, cassettes))


def _plain(value: JSON) -> JSON:
    """The parsed YAML as plain JSON-able data (the loader's mappings carry line numbers)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _named_files(case: LoadedCase[CaseBase], store: CassetteStore) -> list[Path]:
    """The cassettes (any ``cassette:`` value) and the data files of the agent's tools the case names."""
    files: list[Path] = []

    def walk(value: JSON) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                if key == "cassette" and isinstance(inner, str):
                    # an invalid name fails the case itself; the fingerprint need not say so
                    with contextlib.suppress(CassetteError):
                        files.append(store.path_of(inner))
                else:
                    walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    raw = _plain(case.raw)
    walk(raw)
    agent = raw.get("agent")
    if isinstance(agent, dict):
        for tool in resolve_agent_paths(agent, case.path.parent).get("tools") or []:
            for key in ("path", "specification"):
                value = tool.get(key) if isinstance(tool, dict) else None
                if isinstance(value, str) and Path(value).is_file():
                    files.append(Path(value))
    return files


def case_fingerprint(case: LoadedCase[CaseBase], store: CassetteStore) -> str:
    """A short hash of what decides the case's verdict: the case as parsed (anchors resolved) and the
    files it names. It changes when the case's inputs, expectation or recorded traffic change."""
    text = json.dumps(_plain(case.raw), sort_keys=True, ensure_ascii=False, default=str)
    chunks = [text.encode()]
    for path in _named_files(case, store):
        chunks.append(path.name.encode())
        chunks.append(_normalised(path) if path.is_file() else b"(missing)")
    return _digest(chunks)[:FINGERPRINT_CHARS]
