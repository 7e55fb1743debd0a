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
