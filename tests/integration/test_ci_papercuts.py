"""The CI recipe as a new user follows it (docs/ci.md): node ids as the page prints them, locations that
read ``cases/...`` wherever wireconf is installed, and a run that points at its own report."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CASES
from wireconf.pytest_plugin import session as session_module
from wireconf.pytest_plugin.session import shown_path
from wireconf.pytest_plugin.summary import TOP_CAUSES, Tally

SEED = "wire.openai.chat.option-seed"
OPTIONS = "wire/openai.chat/options.yaml"


@pytest.mark.parametrize(
    "node_id",
    [
        f"{OPTIONS}::{SEED}",  # as docs/ci.md prints it: relative to the corpus folder
        f"cases/{OPTIONS}::{SEED}",  # as report locations read
        f"{CASES / OPTIONS}::{SEED}",  # the full path
    ],
)
def test_a_node_id_under_wireconf_selects_that_case_alone(pytester, node_id):
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = pytester.runpytest("--wireconf", node_id, "-p", "no:cacheprovider", "--co", "-q")
    assert result.ret == 0, result.stdout.str()[-2000:]
    (collected,) = [line for line in result.stdout.lines if "::" in line]
    # the node id reads as in a run of the whole corpus (relative to the corpus folder, or to the
    # rootdir pytest found from a full path), so that --lf and a copied node id find it again
    assert collected in (f"{OPTIONS}::{SEED}", f"cases/{OPTIONS}::{SEED}")


def test_a_path_outside_the_corpus_runs_besides_it(pytester):
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = pytester.runpytest("--wireconf", "test_own.py", "-p", "no:cacheprovider", "--co", "-q")
    collected = [line for line in result.stdout.lines if "::" in line]
    assert "test_own.py::test_own" in collected
    assert sum(1 for line in collected if f"::{SEED}" in line) == 1
    assert len(collected) > 100  # the whole corpus besides


def test_the_installed_corpus_reads_cases_wherever_it_lies(tmp_path, monkeypatch):
    """A wheel's corpus inside the project's own venv (rootdir above it) still reads ``cases/...``;
    a corpus of the project's own is named from the rootdir."""
    project = tmp_path / "project"
    packaged = project / ".venv" / "lib" / "python3.11" / "site-packages" / "wireconf" / "_corpus"
    case_file = packaged / "cases" / "wire" / "openai.chat" / "options.yaml"
    case_file.parent.mkdir(parents=True)
    case_file.write_text("cases: []\n")
    monkeypatch.setattr(session_module, "PACKAGED", packaged)
    assert shown_path(case_file, project, packaged / "cases") == "cases/wire/openai.chat/options.yaml"
    own = project / "conformance" / "my-cases" / "x.yaml"
    own.parent.mkdir(parents=True)
    own.write_text("cases: []\n")
    assert shown_path(own, project, own.parent) == "conformance/my-cases/x.yaml"
    assert shown_path(own, Path("/nowhere"), own.parent) == "my-cases/x.yaml"


def test_a_run_with_many_causes_points_at_its_own_report_not_wireconf_findings():
    tally = Tally()
    for n in range(TOP_CAUSES + 2):
        tally.failures.append((f"case-{n}", [{"rules": [f"r/{n}"], "signature": f"sig-{n}", "tier": "spec"}]))
    lines = tally.causes()
    assert len(lines) == TOP_CAUSES + 2  # the heading, the causes shown, the line about the rest
    assert "wireconf findings" not in "\n".join(lines)
    assert "--report" in lines[-1] and "wireconf report" in lines[-1]
