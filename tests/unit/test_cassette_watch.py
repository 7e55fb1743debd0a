"""Who changed the cassettes folder (``wireconf.cassettes.watch``): the harness's recording of the case,
the process that ran it (its audit), another wireconf process (the ledger), or nobody it knows."""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from wireconf.cassettes import watch
from wireconf.cassettes.watch import AUDIT, CassetteWatch, announce, attribute, digest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def _attribute(changed, recorded=(), written=(), announced=None, files=None):
    files = files or {}
    return attribute(changed, recorded, written, lambda: announced or {}, files.get)


def test_the_cases_own_recording_is_nobodys_fault():
    look = _attribute(["/c/openai/a.yaml", "/c/openai"], recorded=["/c/openai/a.yaml"])
    assert look.runtime == [] and look.unknown == []


def test_a_write_of_the_process_that_ran_the_case_is_the_runtimes():
    look = _attribute(["/c/openai/a.yaml", "/c/google"], written=["/c/openai/a.yaml", "/c/google/b.yaml"])
    assert look.runtime == ["/c/google", "/c/openai/a.yaml"] and look.unknown == []


def test_a_file_holding_what_another_wireconf_process_announced_is_that_processs():
    announced = {"/c/openai/a.yaml": {digest(b"first"), digest(b"second")}}
    look = _attribute(
        ["/c/openai/a.yaml"], announced=announced, files={"/c/openai/a.yaml": digest(b"second")}
    )
    assert look.runtime == [] and look.unknown == []


def test_a_file_whose_bytes_nobody_announced_is_nobody_it_knows():
    """Announced, then rewritten by someone else: the bytes on disk are not what the writer announced."""
    announced = {"/c/openai/a.yaml": {digest(b"first")}}
    changed = ["/c/openai/a.yaml", "/c/openai/b.yaml"]
    look = _attribute(changed, announced=announced, files={"/c/openai/a.yaml": digest(b"tampered")})
    assert look.runtime == [] and look.unknown == ["/c/openai/a.yaml", "/c/openai/b.yaml"]


def test_a_removed_file_is_never_another_wireconf_processs():
    """wireconf replaces cassettes atomically and never removes one."""
    look = _attribute(["/c/openai/a.yaml"], announced={"/c/openai/a.yaml": {digest(b"x")}}, files={})
    assert look.unknown == ["/c/openai/a.yaml"]


def test_a_folder_another_wireconf_process_wrote_into_is_its():
    look = _attribute(["/c/anthropic"], announced={"/c/anthropic/m.yaml": {digest(b"x")}})
    assert look.unknown == [] and look.runtime == []


def test_the_audit_sees_every_way_python_code_writes_and_no_read(tmp_path):
    (tmp_path / "old.yaml").write_text("x")
    (tmp_path / "gone.yaml").write_text("x")
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "leaf.yaml").write_text("x")
    AUDIT.start()
    try:
        AUDIT.take()
        (tmp_path / "old.yaml").read_text()  # a read is no write
        (tmp_path / "a.yaml").write_text("x")
        with open(tmp_path / "b.yaml", "a") as handle:
            handle.write("x")
        os.close(os.open(tmp_path / "c.yaml", os.O_WRONLY | os.O_CREAT, 0o600))
        os.replace(tmp_path / "old.yaml", tmp_path / "moved.yaml")
        os.mkdir(tmp_path / "folder")
        os.remove(tmp_path / "gone.yaml")
        shutil.rmtree(tmp_path / "tree")  # its unlinks and rmdirs are relative to a descriptor
        written = set(AUDIT.take())
    finally:
        AUDIT.stop()
    names = {os.path.relpath(path, tmp_path) for path in written if path.startswith(str(tmp_path))}
    expected = {"a.yaml", "b.yaml", "c.yaml", "old.yaml", "moved.yaml", "folder", "gone.yaml"}
    assert expected <= names, names
    assert "tree" in names or "tree/leaf.yaml" in names
    assert AUDIT.take() == []  # idle once no watch wants it


def test_announcements_reach_a_watch_started_before_them(tmp_path, monkeypatch):
    monkeypatch.setenv("WIRECONF_CACHE_DIR", str(tmp_path / "cache"))
    reader = watch._LedgerReader(watch.ledger_path())
    try:
        announce(tmp_path / "c" / "a.yaml", "one")
        announce(tmp_path / "c" / "a.yaml", "two")
        seen = reader.read()
        assert seen[os.path.realpath(tmp_path / "c" / "a.yaml")] == {digest(b"one"), digest(b"two")}
    finally:
        reader.close()


def test_a_ledger_moved_aside_is_followed(tmp_path, monkeypatch):
    monkeypatch.setenv("WIRECONF_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(watch, "LEDGER_MAX_BYTES", 500)
    reader = watch._LedgerReader(watch.ledger_path())
    try:
        for n in range(6):  # each line is about 150 bytes: the ledger is moved aside once along the way
            announce(tmp_path / f"{n}.yaml", str(n))
        assert (tmp_path / "cache" / (watch.LEDGER_NAME + ".1")).exists()
        assert len(reader.read()) == 6
    finally:
        reader.close()


def test_a_watch_tells_its_own_processs_write_from_another_processs(tmp_path, monkeypatch):
    """End to end on one folder: this process writes one file (the runtime's), a child process announces
    and writes another (a wireconf process's), and a third is written by a child that announces nothing
    (nobody it knows): the audit sees no child's write, whatever it is."""
    import subprocess

    monkeypatch.setenv("WIRECONF_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "cassettes"
    root.mkdir()
    seen = CassetteWatch.start(root)
    assert seen is not None
    try:
        (root / "mine.yaml").write_text("by the runtime")
        announced = (
            "from pathlib import Path; from wireconf.cassettes.writer import write_announced; "
            f"write_announced(Path({str(root / 'theirs.yaml')!r}), 'by another run')"
        )
        subprocess.run([sys.executable, "-c", announced], check=True, env=os.environ)
        subprocess.run(["sh", "-c", f"echo x > {root / 'stray.yaml'}"], check=True)
        look = seen.look(recorded=[])
    finally:
        seen.close()
    real = os.path.realpath(root)
    assert look.runtime == [f"{real}/mine.yaml"]
    assert look.unknown == [f"{real}/stray.yaml"]
