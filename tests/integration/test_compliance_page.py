"""The compliance page ``wireconf findings`` writes beside docs/findings.md: what it shows, rendered in
a real headless browser with no console error, and every string a runtime supplies escaped in it and in
the Markdown renderings."""

from __future__ import annotations

import re

import pytest

from tests.conftest import CASES
from tests.integration.test_reports import CHROMIUM, _chromium
from wireconf.kinds.registry import open_corpus
from wireconf.reports.compliance import render_compliance
from wireconf.reports.findings import render_findings
from wireconf.reports.jsonl import CaseRecord
from wireconf.reports.markdown import render_markdown
from wireconf.reports.matrix import build_matrix

HOSTILE = "<script>alert(1)</script>"
RULE = "7.1.5/max-completion-tokens"


def _record(impl, version, case_id, status, diff=None, reason=None):
    kind, api = case_id.split(".")[0], ".".join(case_id.split(".")[1:3])
    return CaseRecord(
        impl=impl,
        version=version,
        id=case_id,
        kind=kind,
        api=api,
        rules=[RULE],
        status=status,
        duration=0.0,
        baseline="expected" if status == "failed" else None,
        reason=reason,
        diff=diff,
        corpus="2.0.0",
    )


@pytest.fixture(scope="module")
def records():
    bad = '$.max_tokens: unexpected key (got "<img src=x onerror=alert(2)>")'
    return [
        _record("alpha", "1.0", "wire.openai.chat.option-max-output-tokens", "passed"),
        _record(
            "alpha",
            "1.0",
            "wire.openai.chat.option-temperature",
            "failed",
            bad,
            f"{RULE}: alpha's `f` drops it",
        ),
        _record(HOSTILE, '"><b>9</b>', "wire.openai.chat.option-max-output-tokens", "failed", bad, None),
        _record(HOSTILE, '"><b>9</b>', "process.openai.chat.mapping-text", "unsupported"),
    ]


@pytest.fixture(scope="module")
def catalogue():
    return open_corpus(CASES).catalogue


def _page(records, catalogue):
    return render_compliance(records, catalogue, [], "wireconf findings", 4, "2.0.0")


def test_the_page_shows_versions_matrix_failures_and_the_rules_view(records, catalogue):
    page = _page(records, catalogue)
    assert '<span id="corpus-version">2.0.0</span>' in page
    runtimes = re.search(r'<table id="runtimes">(.*?)</table>', page, re.S).group(1)
    assert '<td class="version">1.0</td>' in runtimes
    assert re.search(r'<tr data-kind="wire" data-api="openai.chat">', page)
    by_rule = re.search(r'<table id="by-rule">(.*?)</table>', page, re.S).group(1)
    assert f"<code>{RULE}</code>" in by_rule and "alpha</a> (1)" in by_rule  # both runtimes break it
    assert "&lt;script&gt;alert(1)&lt;/script&gt;</a> (1)" in by_rule
    assert "alpha&#39;s `f` drops it" in page  # the baseline's explanation, with the diff


def test_every_runtime_supplied_string_is_escaped(records, catalogue):
    page = _page(records, catalogue)
    findings = render_findings(records, catalogue, [], "wireconf findings", 4, corpus_version="2.0.0")
    summary = render_markdown(build_matrix(records))
    for text in (page, findings, summary):
        assert HOSTILE not in text and "<b>9</b>" not in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(2)&gt;" in page


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)"
)
def test_the_page_renders_in_chromium_without_a_console_error(records, catalogue, tmp_path):
    page = tmp_path / "findings.html"
    page.write_text(_page(records, catalogue), encoding="utf-8")
    done = _chromium(tmp_path, page.as_uri(), "--enable-logging=stderr", "--v=0", "--dump-dom")
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    dom = done.stdout
    assert "<script>alert" not in dom and "<img src" not in dom  # nothing a runtime sent became markup
    assert len(re.findall(r'<details class="case">', dom)) == 2
    assert re.search(r'<table id="matrix">.*<b class="n-passed">1</b>/2', dom, re.S)


def _rule_breakers():
    """Three runtimes of four break RULE: a question for the spec's authors."""
    bad = "$.max_tokens: unexpected key (got 5)"
    case = "wire.openai.chat.option-temperature"
    out = [
        _record(name, "1.0", case, "failed", f"the request differs:\n  {bad}")
        for name in ("one", "two", HOSTILE)
    ]
    difference = {"subject": "request", "path": "$.max_tokens", "change": "unexpected-key", "text": bad}
    for record in out:
        record.differences = [
            {**difference, "signature": "request $.max_tokens: unexpected-key", "rules": [RULE]}
        ]
    return [*out, _record("four", "1.0", case, "passed")]


def test_a_rule_most_runtimes_break_is_a_question_for_the_spec_authors(catalogue):
    page = _page(_rule_breakers(), catalogue)
    question = re.search(r'<section class="question" id="[^"]*">(.*?)</section>', page, re.S).group(1)
    assert f"<code>{RULE}</code>: broken by\n3 of the 4 runtimes judged on it" in question
    assert catalogue.rules[RULE].statement.replace("'", "&#39;") in question
    assert question.count('<code class="difference">$.max_tokens: unexpected key (got 5)</code>') == 3
    assert "&lt;script&gt;alert(1)&lt;/script&gt; (1 of 1)" in question
    by_rule = re.search(r'<table id="by-rule">(.*?)</table>', page, re.S).group(1)
    assert by_rule.count("unexpected key (got 5)") == 3


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)"
)
def test_the_questions_render_in_chromium(catalogue, tmp_path):
    page = tmp_path / "findings.html"
    page.write_text(_page(_rule_breakers(), catalogue), encoding="utf-8")
    done = _chromium(tmp_path, page.as_uri(), "--enable-logging=stderr", "--v=0", "--dump-dom")
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert console == []
    dom = done.stdout
    assert "<script>alert" not in dom
    assert len(re.findall(r'<section class="question"', dom)) == 1
    assert re.search(r"<h2>Questions for the spec's authors</h2>", dom)
