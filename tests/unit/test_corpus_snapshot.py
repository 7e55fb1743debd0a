"""The corpus as the run started, compared later: a change, an addition, a removal, and a file
rewritten with its first bytes again (caught by its change time, which no unprivileged process can
set back), and the comparison at collection hashes only what moved."""

from __future__ import annotations

import os

import pytest

from wireconf.cassettes import netns
from wireconf.pytest_plugin import corpus_snapshot
from wireconf.pytest_plugin.corpus_snapshot import changes, corpus_root, restat, take


@pytest.fixture
def corpus(tmp_path):
    (tmp_path / "rules.yaml").write_text("rules: []\n")
    (tmp_path / "wire").mkdir()
    (tmp_path / "wire" / "a.yaml").write_text("cases: []\n")
    (tmp_path / "wire" / "b.yaml").write_text("cases: []\n")
    return tmp_path


def _later(path) -> None:
    """Make sure the next write lands on a later tick of the file system's clock."""
    before = os.stat(path).st_ctime_ns
    while os.stat(path).st_ctime_ns == before:
        os.utime(path, ns=(before, before))  # moves ctime only (to now); mtime set back to what it was


def test_nothing_moved_is_no_change_and_is_not_hashed_again(corpus, monkeypatch):
    started = take(corpus)
    monkeypatch.setattr(corpus_snapshot, "_hashed", lambda path: pytest.fail(f"hashed {path} again"))
    assert changes(started, restat(corpus, started)) == []


def test_changed_added_and_removed_files_are_named(corpus):
    started = take(corpus)
    (corpus / "wire" / "a.yaml").write_text("cases: [forged]\n")
    (corpus / "wire" / "b.yaml").unlink()
    (corpus / "wire" / "c.yaml").write_text("cases: []\n")
    for now in (restat(corpus, started), take(corpus)):
        assert changes(started, now) == [
            "wire/a.yaml (changed)",
            "wire/b.yaml (removed)",
            "wire/c.yaml (added)",
        ]


def test_a_file_rewritten_and_restored_is_named_though_its_bytes_are_the_same(corpus):
    started = take(corpus)
    path = corpus / "wire" / "a.yaml"
    original = path.read_bytes()
    stat = os.stat(path)
    _later(path)
    path.write_bytes(b"cases: [forged]\n")
    path.write_bytes(original)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # the mtime put back, as a forger would
    found = changes(started, restat(corpus, started))
    assert found == ["wire/a.yaml (rewritten: its bytes are the same again, but it was written or replaced)"]


def test_the_corpus_root_is_the_nearest_folder_with_rules_yaml(corpus, tmp_path):
    assert corpus_root(corpus / "wire" / "a.yaml") == corpus.resolve()
    assert corpus_root(corpus / "wire") == corpus.resolve()
    assert corpus_root(corpus / "missing.yaml") is None
    assert corpus_root(tmp_path.parent) is None


def test_the_launcher_reads_its_options_and_refuses_others(monkeypatch):
    parsed = netns._parse(["--parent=12", "--read-only=/a", "--read-only=/b", "--", "node", "x.js"])
    assert parsed == (12, ["/a", "/b"], True, None, ["node", "x.js"])
    assert netns._parse(["--no-isolation", "--", "rt"]) == (None, [], False, None, ["rt"])
    for wrong in (["--parent=x", "--", "rt"], ["--bogus", "--", "rt"], ["--parent=1", "--"]):
        with pytest.raises(SystemExit, match="usage"):
            netns._parse(wrong)


def test_the_launcher_command_names_the_parent_and_the_read_only_folders():
    argv = netns.launcher_command(["node", "rt.js"], 42, ["/c"])
    assert argv[-5:] == ["--parent=42", "--read-only=/c", "--", "node", "rt.js"]
    assert netns.launcher_command(["rt"], 42, ["/c"], isolate=False)[-4:] == [
        "--parent=42",
        "--no-isolation",
        "--",
        "rt",
    ]
