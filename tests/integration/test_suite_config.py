"""The project's test command (README: ``.venv/bin/pytest``, no paths) spreads over xdist workers a file
at a time (tests/spread.py, through tests/conftest.py); a run given paths, or one that chooses ``-n``
itself, is left as it is. The small project's pytest runs leave the wireconf plugin out: they need only
pytest and xdist."""

from __future__ import annotations

import re

import pytest

from tests.conftest import REPO

QUIET = ("-v", "-p", "no:randomly", "-p", "no:wireconf")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project whose conftest has the suite's hook, with three test files of four tests each."""
    pytest.importorskip("xdist")
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)  # this test may itself run in a worker
    pytester.makeini("[pytest]\ntestpaths = checks\n")
    pytester.makeconftest("from tests.spread import pytest_cmdline_main  # noqa: F401\n")
    pytester.mkpydir("checks")
    for name in ("a", "b", "c"):
        tests = "".join(f"def test_{i}():\n    pass\n\n" for i in range(4))
        (pytester.path / "checks" / f"test_{name}.py").write_text(tests)
    return pytester


def _workers(result: pytest.RunResult) -> dict[str, set[str]]:
    """The workers each test file ran on, from the verbose lines (``[gw0] PASSED checks/test_a.py::...``)."""
    ran: dict[str, set[str]] = {}
    for line in result.stdout.lines:
        match = re.search(r"\[(gw\d+)\].* PASSED (checks/test_\w+\.py)::", line)
        if match:
            ran.setdefault(match[2], set()).add(match[1])
    return ran


def test_no_paths_runs_on_workers_a_file_at_a_time(project):
    result = project.runpytest_subprocess(*QUIET)
    result.assert_outcomes(passed=12)
    ran = _workers(result)
    assert set(ran) == {"checks/test_a.py", "checks/test_b.py", "checks/test_c.py"}
    assert all(len(workers) == 1 for workers in ran.values()), ran  # --dist loadfile


@pytest.mark.parametrize("args", [("checks",), ("-n", "0")], ids=["paths", "n0"])
def test_paths_or_a_chosen_n_are_left_as_they_are(project, args):
    result = project.runpytest_subprocess(*QUIET, *args)
    result.assert_outcomes(passed=12)
    assert _workers(result) == {}
    result.stdout.no_fnmatch_line("*bringing up nodes*")
