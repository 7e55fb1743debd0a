"""Cassettes no case uses are reported after a full run, and only then; under xdist too."""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import REPO

RULES = """\
rules:
  - id: 8.1/content-string
    level: MUST
    basis: pseudocode
    source: {seed: s8.txt, section: '8.1'}
    statement: The result is the content string.
"""

CASES = """\
cases:
  - id: process.openai.chat.uses-a
    kind: process
    api: openai.chat
    rules: [8.1/content-string]
    agent: {model: {id: m}}
    response: {cassette: openai/a}
    expect: This is a test.
  - id: process.openai.chat.uses-a-too
    kind: process
    api: openai.chat
    rules: [8.1/content-string]
    agent: {model: {id: m}}
    response: {cassette: openai/a}
    expect: This is a test.
"""


@pytest.fixture
def project(pytester):
    pytester.syspathinsert(REPO)
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "rules.yaml").write_text(RULES)
    (pytester.path / "cases" / "chat.yaml").write_text(CASES)
    source = next((REPO / "cassettes" / "openai").glob("chat__01__*.yaml"))
    for name in ("a", "b", "nested/c"):
        target = pytester.path / "cassettes" / "openai" / f"{name}.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    (pytester.path / "cassettes" / "openai" / ".a.yaml.x1.tmp").write_text("a leftover temporary file")
    return pytester


def test_a_full_run_lists_the_cassettes_no_case_uses(project):
    result = project.runpytest_inprocess("cases", "-p", "no:cacheprovider")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["*wireconf cassettes*", "2 cassette(s) are used by no case:", "  openai/b", "  openai/nested/c"]
    )
    assert "openai/a\n" not in result.stdout.str()


@pytest.mark.parametrize("selection", [["-k", "uses-a-too"], ["cases/chat.yaml::process.openai.chat.uses-a"]])
def test_a_partial_run_says_nothing_about_unused_cassettes(project, selection):
    args = selection if selection[0] == "-k" else []
    targets = selection if selection[0] != "-k" else ["cases"]
    result = project.runpytest_inprocess(*targets, *args, "-p", "no:cacheprovider")
    assert result.ret == 0
    assert "used by no case" not in result.stdout.str()


def test_under_xdist_the_controller_reports_what_the_workers_found(project):
    result = project.runpytest_inprocess("cases", "-p", "no:cacheprovider", "-n", "2")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["2 cassette(s) are used by no case:", "  openai/b"])
