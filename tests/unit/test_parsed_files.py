"""The cache of parsed case files (harness/corpus/parsed_files.py): a file is parsed again whenever its
bytes change, and a cache that is foreign or broken is ignored, so a corpus loads the same with or
without it."""

from __future__ import annotations

import pickle

import pytest

from harness.corpus import parsed_files
from harness.corpus.loader import Corpus

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
    first = Corpus(small_corpus)
    assert _contents(first) == {"wire.openai.chat.a": "hi", "wire.openai.chat.b": "hi"}
    (cache,) = (tmp_path / "cache" / "parsed").glob("*.pickle")
    (small_corpus / "wire" / "b.yaml").write_text(CASE.format(name="b", content="changed"))
    second = Corpus(small_corpus)
    assert _contents(second) == {"wire.openai.chat.a": "hi", "wire.openai.chat.b": "changed"}
    assert second.catalogue.rules.keys() == first.catalogue.rules.keys()
    # lines survive the cache: a case still points at its file and line
    case = next(c for c in second.cases() if c.id == "wire.openai.chat.a")
    assert case.line == 2 and case.raw.key_lines["expect"] == 8
    assert case.raw is not next(c for c in Corpus(small_corpus).cases() if c.id == case.id).raw
    assert cache.is_file()


def test_a_foreign_or_broken_cache_is_ignored(small_corpus, tmp_path):
    Corpus(small_corpus)
    (cache,) = (tmp_path / "cache" / "parsed").glob("*.pickle")
    version, entries = pickle.loads(cache.read_bytes())
    poisoned = {key: (digest, pickle.dumps({"cases": []})) for key, (digest, _) in entries.items()}
    cache.write_bytes(pickle.dumps(("another parser", poisoned)))
    assert _contents(Corpus(small_corpus))["wire.openai.chat.a"] == "hi"
    cache.write_bytes(b"not a pickle")
    assert _contents(Corpus(small_corpus))["wire.openai.chat.b"] == "hi"
    assert pickle.loads(cache.read_bytes())[0] == version  # rewritten by the load that ignored it
