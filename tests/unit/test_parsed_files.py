"""The cache of parsed case files (wireconf/corpus/parsed_files.py): a file is parsed again whenever its
bytes change, and a cache that is foreign or broken is ignored, so a corpus loads the same with or
without it."""

from __future__ import annotations

import pickle

import pytest

from wireconf.corpus import parsed_files
from wireconf.corpus.loader import Corpus
from wireconf.kinds.registry import open_corpus

CASE = """\
cases:
  - id: wire.openai.chat.{name}
    kind: wire
    api: openai.chat
    rules: [7.1.1/role-copied]
    agent: {{model: {{id: gpt-4o}}}}
    messages: [{{role: user, content: [{{kind: text, value: hi}}]}}]
    expect: {{messages: [{{role: user, content: {content}}}]}}
"""


@pytest.fixture
def small_corpus(tmp_path, monkeypatch):
    monkeypatch.setenv("WIRECONF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(parsed_files, "MIN_FILES", 1)
    root = tmp_path / "cases"
    (root / "wire").mkdir(parents=True)
    (root / "rules.yaml").write_text(
        "rules:\n  - id: 7.1.1/role-copied\n    level: MUST\n    basis: pseudocode\n"
        "    source: {seed: s, section: 7.1.1}\n    statement: role is copied.\n"
    )
    for name in ("a", "b"):
        (root / "wire" / f"{name}.yaml").write_text(CASE.format(name=name, content="hi"))
    return root


def _contents(corpus: Corpus) -> dict[str, object]:
    return {case.id: case.raw["expect"]["messages"][0]["content"] for case in corpus.cases()}


def test_a_file_whose_bytes_change_is_parsed_again(small_corpus, tmp_path):
    first = open_corpus(small_corpus)
    assert _contents(first) == {"wire.openai.chat.a": "hi", "wire.openai.chat.b": "hi"}
    (cache,) = (tmp_path / "cache" / "parsed").glob("*.pickle")
    (small_corpus / "wire" / "b.yaml").write_text(CASE.format(name="b", content="changed"))
    second = open_corpus(small_corpus)
    assert _contents(second) == {"wire.openai.chat.a": "hi", "wire.openai.chat.b": "changed"}
    assert second.catalogue.rules.keys() == first.catalogue.rules.keys()
    # lines survive the cache: a case still points at its file and line
    case = next(c for c in second.cases() if c.id == "wire.openai.chat.a")
    assert case.line == 2 and case.raw.key_lines["expect"] == 8
    assert case.raw is not next(c for c in open_corpus(small_corpus).cases() if c.id == case.id).raw
    assert cache.is_file()


def test_a_foreign_or_broken_cache_is_ignored(small_corpus, tmp_path):
    open_corpus(small_corpus)
    (cache,) = (tmp_path / "cache" / "parsed").glob("*.pickle")
    key = (cache.parent / ".key").read_bytes()
    version, entries, _derived = pickle.loads(_unsigned(cache.read_bytes()))
    poisoned = {key: (digest, pickle.dumps({"cases": []})) for key, (digest, _) in entries.items()}
    cache.write_bytes(_signed(key, pickle.dumps(("another parser", poisoned))))
    assert _contents(open_corpus(small_corpus))["wire.openai.chat.a"] == "hi"
    cache.write_bytes(b"not a pickle")
    assert _contents(open_corpus(small_corpus))["wire.openai.chat.b"] == "hi"
    assert pickle.loads(_unsigned(cache.read_bytes()))[0] == version  # rewritten by the load that ignored it


def _signed(key: bytes, data: bytes) -> bytes:
    import hashlib
    import hmac

    return hmac.new(key, data, hashlib.sha256).digest() + data


def _unsigned(blob: bytes) -> bytes:
    return blob[32:]


class _Plant:
    """Unpickling it runs code: it touches ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.path}",))


def test_a_planted_pickle_in_the_cache_runs_nothing_and_changes_nothing(small_corpus, tmp_path):
    """A pickle planted in .cache/parsed/ used to run on the next load: unsigned, or even signed with
    the machine's key, it builds nothing but parsed YAML, and the cases read as their files say."""
    open_corpus(small_corpus)
    (cache,) = (tmp_path / "cache" / "parsed").glob("*.pickle")
    signed = cache.read_bytes()
    marker = tmp_path / "planted-code-ran"
    cache.write_bytes(pickle.dumps(_Plant(str(marker))))  # a bare pickle, as before the signature
    assert _contents(open_corpus(small_corpus)) == {"wire.openai.chat.a": "hi", "wire.openai.chat.b": "hi"}
    assert not marker.exists()
    version, entries, derived = pickle.loads(_unsigned(signed))
    key = (cache.parent / ".key").read_bytes()
    forged = {path: (digest, pickle.dumps(_Plant(str(marker)))) for path, (digest, _) in entries.items()}
    cache.write_bytes(_signed(key, pickle.dumps((version, forged, derived))))  # signed: the key was readable
    assert _contents(open_corpus(small_corpus)) == {"wire.openai.chat.a": "hi", "wire.openai.chat.b": "hi"}
    cache.write_bytes(_signed(key, pickle.dumps(_Plant(str(marker)))))
    assert _contents(open_corpus(small_corpus)) == {"wire.openai.chat.a": "hi", "wire.openai.chat.b": "hi"}
    assert not marker.exists()


def test_parsed_data_planted_without_the_key_changes_no_expectation(small_corpus, tmp_path):
    open_corpus(small_corpus)
    (cache,) = (tmp_path / "cache" / "parsed").glob("*.pickle")
    version, entries, derived = pickle.loads(_unsigned(cache.read_bytes()))
    forged = {}
    for path, (digest, blob) in entries.items():
        data = pickle.loads(blob)
        if "cases" in data:
            data["cases"][0]["expect"]["messages"][0]["content"] = "forged"
        forged[path] = (digest, pickle.dumps(data))
    cache.write_bytes(pickle.dumps((version, forged, derived)))  # what a planter without the key can write
    assert _contents(open_corpus(small_corpus)) == {"wire.openai.chat.a": "hi", "wire.openai.chat.b": "hi"}
    assert (cache.parent / ".key").stat().st_mode & 0o077 == 0  # the key: its owner's alone


def test_a_derived_value_is_kept_until_its_file_or_its_version_changes(small_corpus):
    """What the harness derives from a case file alone (the contract's problems in its expected
    requests) is worked out once per change of the file or of the computation's version, across
    processes (a fresh ``Corpus`` reads the cache a previous one wrote)."""
    calls: list[str] = []

    def derive(corpus: Corpus, case_id: str, version: str = "v1") -> object:
        case = next(c for c in corpus.cases() if c.id == case_id)
        return corpus.derived(case, "n", version, lambda: calls.append(case_id) or [("$.x", case_id)])

    first = open_corpus(small_corpus)
    assert derive(first, "wire.openai.chat.a") == [("$.x", "wire.openai.chat.a")]
    first.save_derived()
    fresh = Corpus(small_corpus, first.case_model)  # another process: only the cache file is shared
    assert derive(fresh, "wire.openai.chat.a") == [("$.x", "wire.openai.chat.a")]
    assert calls == ["wire.openai.chat.a"]
    assert derive(fresh, "wire.openai.chat.a", version="v2") == [("$.x", "wire.openai.chat.a")]
    assert calls == ["wire.openai.chat.a"] * 2
    fresh.save_derived()
    (small_corpus / "wire" / "a.yaml").write_text(CASE.format(name="a", content="changed"))
    assert derive(Corpus(small_corpus, first.case_model), "wire.openai.chat.a", "v2")
    assert calls == ["wire.openai.chat.a"] * 3
