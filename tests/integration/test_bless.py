"""``wireconf bless``: the reference's output written into expectations, the rest of the file untouched."""

from __future__ import annotations

import difflib
import shutil
import textwrap

import pytest

from tests.conftest import CASES, REPO
from wireconf.cli import main as wireconf
from wireconf.maintenance.bless import BlessError, bless

NEW_CASE = """\

  - id: e2e.openai.chat.just-recorded
    kind: e2e
    api: openai.chat
    rules: [8.1/content-string]
    cassette: openai/chat__05__opentelemetry-python-contrib__test_chat_completion_multiple_choices_i0
    agent: {model: {id: gpt-4o-mini}}
    messages: *say-this-is-a-test
"""


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "cases"
    shutil.copytree(CASES, root)
    shutil.copytree(REPO / "cassettes", tmp_path / "cassettes")
    return root


def changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_a_new_e2e_case_gets_its_request_and_result_and_nothing_else_changes(corpus, run_corpus):
    path = corpus / "e2e" / "openai.chat" / "replies.yaml"
    before = path.read_text() + NEW_CASE
    path.write_text(before)
    (done,) = bless(corpus, ["e2e.openai.chat.just-recorded"])
    assert done.keys == ("expect_request", "expect")
    after = path.read_text()
    assert after.startswith(before)  # only lines added at the case's end
    assert after[len(before) :] == textwrap.indent(
        "expect_request:\n"
        "  model: gpt-4o-mini\n"
        "  messages:\n"
        "    - {role: user, content: Say this is a test}\n"
        "expect: This is a test. How can I assist you further?\n",
        "    ",
    )
    run = run_corpus("-k", "just-recorded", target=corpus)
    assert run.outcomes == {"e2e.openai.chat.just-recorded": "passed"}


def test_a_stale_expectation_is_replaced_in_place(corpus):
    path = corpus / "process" / "openai.chat" / "real-traffic.yaml"
    before = path.read_text()
    stale = before.replace("    expect: This is a test.\n", "    expect: Something else.\n", 1)
    path.write_text(stale)
    bless(
        corpus, ["process.openai.chat.real-plain-text", "process.openai.chat.real-structured-output-parsed"]
    )
    assert path.read_text() == before  # the stale line is back; the matching case was not rewritten


def test_an_exception_becomes_a_readable_expect_error(corpus):
    path = corpus / "process" / "openai.embeddings" / "edge-cases.yaml"
    text = path.read_text()
    old = '    expect_error: {category: empty-response, match: "^Empty embedding response$"}\n'
    assert old in text
    path.write_text(text.replace(old, "    expect: null\n"))
    bless(corpus, ["process.openai.embeddings.empty-data-raises"])
    lines = changed_lines(text, path.read_text())
    # a ValueError stands for several categories (wireconf.core.error_categories): bless writes its class,
    # and the author names the category the rule means
    assert lines == [
        '-    expect_error: {category: empty-response, match: "^Empty embedding response$"}',
        "+    expect_error: {type: ValueError, match: ^Empty embedding response$}",
    ]


def test_unknown_ids_and_anchored_expectations_write_nothing(corpus, tmp_path):
    before = {p: p.read_text() for p in corpus.rglob("*.yaml")}
    with pytest.raises(BlessError, match=r"no case 'e2e\.openai\.chat\.nope'"):
        bless(corpus, ["e2e.openai.chat.text-reply", "e2e.openai.chat.nope"])
    assert {p: p.read_text() for p in corpus.rglob("*.yaml")} == before
    path = corpus / "e2e" / "openai.chat" / "replies.yaml"
    path.write_text(
        path.read_text().replace("    expect: This is a test.\n", "    expect: &shared Wrong.\n", 1)
    )
    with pytest.raises(BlessError, match="carries an anchor"):
        bless(corpus, ["e2e.openai.chat.text-reply"])


def test_the_command_reports_and_fails_plainly(corpus, capsys):
    assert wireconf(["bless", "--corpus", str(corpus), "e2e.openai.chat.text-reply"]) == 0
    assert "unchanged e2e.openai.chat.text-reply" in capsys.readouterr().out
    assert wireconf(["bless", "--corpus", str(corpus), "nope.nope"]) == 1
    assert "nothing was written" in capsys.readouterr().err
