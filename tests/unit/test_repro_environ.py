"""`wireconf repro` takes a runtime's variables from conformance/runtimes.yaml (luthien's checkout), so a
verify run without them exports no script that cannot import the runtime."""

from __future__ import annotations

from pathlib import Path

import pytest

from wireconf.commands.repro import listed_environ

LISTED = """\
runtimes:
  luthien-abc:
    impl: luthien
    env: {WIRECONF_LUTHIEN_SRC: '{third_party}/luthien-proxy-abc/src'}
  litellm:
    impl: litellm
"""


@pytest.fixture
def baselines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "runtimes.yaml").write_text(LISTED, encoding="utf-8")
    monkeypatch.setenv("WIRECONF_THIRD_PARTY", str(tmp_path / "shared"))
    monkeypatch.delenv("WIRECONF_LUTHIEN_SRC", raising=False)
    return tmp_path


def test_a_listed_runtime_gets_its_source_checkout(baselines: Path) -> None:
    assert listed_environ("luthien-abc", baselines) == {
        "WIRECONF_LUTHIEN_SRC": str(baselines / "shared" / "luthien-proxy-abc" / "src")
    }


def test_a_variable_already_set_is_kept(baselines: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIRECONF_LUTHIEN_SRC", "/elsewhere")
    assert listed_environ("luthien-abc", baselines) == {}


def test_a_runtime_without_variables_or_not_listed_gets_none(baselines: Path, tmp_path: Path) -> None:
    assert listed_environ("litellm", baselines) == {}
    assert listed_environ("mypkg", baselines) == {}
    assert listed_environ("luthien-abc", tmp_path / "no-such-folder") == {}


def test_verify_of_selected_rows_names_its_file_so_the_runtime_s_proofs_are_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Written to the runtime's proofs file, a selection would leave only its rows there."""
    from wireconf.cli import main

    proofs = tmp_path / "proofs"
    proofs.mkdir()
    kept = proofs / "mypkg.yaml"
    kept.write_text("runtime: mypkg\nproofs: []\n", encoding="utf-8")
    report = tmp_path / "mypkg.jsonl"
    report.write_text("", encoding="utf-8")
    args = ["repro", "--verify", "--runtime", "mypkg", "--report", str(report), "--baselines", str(tmp_path)]
    assert main([*args, "--rule", "provider-contract"]) != 0
    assert "name the file with -o" in capsys.readouterr().err
    assert kept.read_text(encoding="utf-8") == "runtime: mypkg\nproofs: []\n"
