"""``wireconf report``: reports of real runs (two runtimes) rendered as Markdown, JUnit XML, a badge and
an HTML page, the page checked in headless Chromium (a screenshot and what the page shows)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.fakes import sends_max_tokens
from tests.png import colours
from wireconf.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SELECT = ("--api=openai.chat", "-k", "options or real-text-deltas or real-plain-text")
BROKEN = sends_max_tokens.BROKEN_RULE
GREEN, RED = (0x2D, 0xA4, 0x4E), (0xCF, 0x22, 0x2E)


@pytest.fixture(scope="module")
def made_once() -> list[Path]:
    """The reports below, once written (by the first test that needs them)."""
    return []


@pytest.fixture
def reports(run_corpus, made_once, tmp_path_factory) -> list[Path]:
    """Reports of the reference and of a fake that breaks one rule, on the same selection of cases: two
    runs in this process (a process each would import the SDKs anew), made once for the module."""
    if not made_once:
        out = tmp_path_factory.mktemp("reports")
        for name, impl in (("reference", "reference"), ("broken", "tests.fakes.sends_max_tokens:adapter")):
            path = out / f"{name}.jsonl"
            run_corpus(f"--impl={impl}", f"--report={path}", *SELECT)
            made_once.append(path)
    return made_once


def _lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_markdown_has_the_matrix_and_each_failure_with_its_diff(reports, capsys):
    assert main(["report", *map(str, reports)]) == 0
    text = capsys.readouterr().out
    broken = [x for x in _lines(reports[1]) if x["status"] == "failed"]
    assert broken
    wire = [x for x in _lines(reports[1]) if x["kind"] == "wire"]
    passed = sum(1 for x in wire if x["status"] == "passed")
    failed = sum(1 for x in wire if x["status"] == "failed")
    assert failed and passed + failed == len(wire)
    # columns: passed / failed / error / unsupported / skipped, as the terminal summary names them
    row = rf"\| wire \| openai\.chat \| {len(wire)} / 0 / 0 / 0 / 0 \| {passed} / {failed} / 0 / 0 / 0 \|"
    assert re.search(row, text)
    assert "### sends-max-tokens 0.0.1: " in text
    assert "<code>wire.openai.chat.option-max-output-tokens</code> failed" in text
    assert "$.max_tokens: unexpected key (got 256)" in text


def test_junit_counts_and_failures(reports, tmp_path):
    out = tmp_path / "junit.xml"
    assert main(["report", *map(str, reports), "--junit", str(out)]) == 0
    root = ET.parse(out).getroot()
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    broken = suites["sends-max-tokens 0.0.1"]
    failing = {c.get("name") for c in broken.iter("testcase") if c.find("failure") is not None}
    assert failing == {x["id"] for x in _lines(reports[1]) if x["status"] == "failed"}
    assert int(broken.get("failures")) == len(failing)
    assert int(suites["reference 0.1.0"].get("failures")) == 0
    case = next(
        c for c in broken.iter("testcase") if c.get("name") == "wire.openai.chat.option-max-output-tokens"
    )
    assert case.get("classname") == "sends-max-tokens.wire.openai.chat"
    assert BROKEN in case.find("failure").text


def test_badges_one_per_runtime(reports, tmp_path):
    assert main(["report", *map(str, reports), "--badge", str(tmp_path / "{impl}.json")]) == 0
    reference = json.loads((tmp_path / "reference.json").read_text())
    broken = json.loads((tmp_path / "sends-max-tokens.json").read_text())
    assert reference["schemaVersion"] == 1 and reference["color"] == "brightgreen"
    lines = _lines(reports[1])
    total = sum(1 for x in lines if x["status"] in ("passed", "failed", "error"))  # judged cases only
    passed = sum(1 for x in lines if x["status"] == "passed")
    unsupported = sum(1 for x in lines if x["status"] == "unsupported")
    spec_failed = sum(1 for x in lines if x["status"] == "failed" and x["tier"] == "spec")
    assert spec_failed  # the fake breaks a rule of the spec's text: both figures fall
    (version,) = {x["corpus"] for x in lines}
    representation = sum(
        1
        for x in lines
        if x["status"] == "failed"
        and x.get("differences")
        and all(d.get("representation") for d in x["differences"])
    )  # failures the provider would read as the spec's requests: the interop figure counts them
    interop = passed + representation
    message = f"spec {total - spec_failed}/{total} · interop {interop}/{total} · all rules {passed}/{total}"
    message += f", {unsupported} unsupported" if unsupported else ""
    assert broken["message"] == f"{message} (corpus {version})" and broken["color"] != "brightgreen"
    assert main(["report", *map(str, reports), "--badge", str(tmp_path / "one.json")]) == 2  # needs {impl}


def test_a_broken_report_line_is_an_error_naming_file_and_line(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"impl": "x", "version": "1", "id": "a", "status": "passed"}\n{"impl": "x"}\n')
    assert main(["report", str(bad)]) == 2
    assert f"{bad}:2: missing version, id, status" in capsys.readouterr().err


def _chromium(tmp_path, url, *args, height=900):
    profile = tmp_path / "profile"
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        f"--user-data-dir={profile}",
        f"--window-size=1100,{height}",
        *args,
        url,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)


@pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)"
)
def test_html_report_renders_in_chromium(reports, tmp_path):
    page = tmp_path / "report.html"
    assert main(["report", *map(str, reports), "--html", str(page)]) == 0

    shot = tmp_path / "top.png"
    _chromium(tmp_path, page.as_uri(), f"--screenshot={shot}")
    seen = colours(shot)
    assert seen[GREEN] > 500, "no pass bar on screen"  # the pass bars of the matrix and the cards
    assert seen[RED] > 100, "no failure bar on screen"  # the failing share of the broken runtime

    dom = _chromium(tmp_path, page.as_uri(), "--dump-dom").stdout
    rows = re.findall(r'<tr data-kind="(\w+)" data-api="([\w.]+)">', dom)
    assert ("wire", "openai.chat") in rows and ("process", "openai.chat") in rows
    failed = sum(1 for x in _lines(reports[1]) if x["status"] == "failed")
    assert f"sends-max-tokens 0.0.1: {failed} failing case(s)" in dom
    assert 'id="case-sends-max-tokens_0.0.1-wire.openai.chat.option-max-output-tokens"' in dom
    assert "<details open" not in dom  # collapsed until asked for

    # the by-rule view: the rule the diff breaks, its tier, the failing cases per runtime
    row = re.search(rf'<tr id="rule-[^"]*" data-rule="{re.escape(BROKEN)}">(.*?)</tr>', dom, re.S)
    assert row, "the broken rule has no row in the by-rule view"
    assert '<span class="tier spec">spec</span>' in row.group(1)
    assert "option-max-output-tokens" in row.group(1)
    # the by-root-cause view: one group per rule and difference, with its count
    causes = re.search(
        r'<table class="causes" data-runtime="sends-max-tokens 0.0.1">(.*?)</table>', dom, re.S
    )
    assert causes and "$.max_tokens: unexpected key" in causes.group(1)
    assert re.search(
        r'<td class="num">\d+</td><td><code>7\.1\.5/max-completion-tokens</code>', causes.group(1)
    )

    # drill-down: the link of a matrix cell opens that cell's failing cases, diff and rules
    link = re.search(r'<a href="#(fail-sends-max-tokens[^"]+-wire-openai\.chat)">failing cases</a>', dom)
    assert link, "the failing cell has no link to its cases"
    opened = _chromium(tmp_path, f"{page.as_uri()}#{link.group(1)}", "--dump-dom").stdout
    section = opened[opened.index(f'id="{link.group(1)}"') :]
    target = r'<details class="case" id="case-sends-max-tokens[^"]*option-max-output-tokens" '
    target += r'data-status="failed" open'
    assert re.search(target, section), "the case did not open"
    assert f"<code>{BROKEN}</code>" in section
    assert "$.max_tokens: unexpected key (got 256)" in section
    drill = tmp_path / "drill.png"  # a tall window: headless screenshots of a scrolled page come out blank
    _chromium(tmp_path, f"{page.as_uri()}#{link.group(1)}", f"--screenshot={drill}", height=4000)
    assert colours(drill)[(0xF6, 0xF8, 0xFA)] > 1000  # opened cases have their own background


def _record(case_id, status, **kw):
    from wireconf.reports.jsonl import CaseRecord

    kw.setdefault("corpus", "1.2.0")
    kw.setdefault("corpus_hash", "sha256:00112233aabbccdd")
    kw.setdefault("python", "3.12")
    return CaseRecord("rt", "1.0", case_id, "wire", "openai.chat", ["r/x"], status, 0.1, **kw)


def _records():
    return [
        _record("c.pass", "passed"),
        _record("c.unsupported", "unsupported", reason="wire:openai.chat not supported by rt"),
        _record("c.skipped", "skipped", reason="needs node"),
        _record("c.known", "failed", baseline="expected", reason="r/x: known", accepted=True, diff="d1"),
        _record("c.regression", "failed", baseline="regression", reason="it passed before", diff="d2"),
        _record("c.new", "failed", baseline="new", reason="never judged", accepted=True, diff="d3"),
        _record("c.fixed", "passed", baseline="fixed", reason="was broken", message="now passes"),
    ]


def test_every_report_names_unsupported_and_skipped_apart(tmp_path):
    from wireconf.reports.badge import render_badge
    from wireconf.reports.html import render_html
    from wireconf.reports.junit import render_junit
    from wireconf.reports.markdown import render_markdown
    from wireconf.reports.matrix import build_matrix

    matrix = build_matrix(_records())
    (rt,) = matrix.runtimes
    markdown = render_markdown(matrix)
    assert "1 unsupported, 1 skipped" in markdown
    assert "Each cell: passed / failed / error / unsupported / skipped." in markdown
    assert "| wire | openai.chat | 2 / 3 / 0 / 1 / 1 (1 known) |" in markdown
    html = render_html(matrix)
    assert '<b class="n-unsupported" data-unsupported="1">1</b> unsupported' in html
    assert '<b class="n-skipped" data-skipped="1">1</b> skipped' in html
    skipped = {
        c.get("name"): c.find("skipped").get("message")
        for c in ET.fromstring(render_junit(matrix)).iter("testcase")
        if c.find("skipped") is not None
    }
    assert skipped["c.unsupported"] == "unsupported: wire:openai.chat not supported by rt"
    assert skipped["c.skipped"] == "skipped: needs node"
    # the three failures have no tier (a report from before tiers): counted against the spec's text
    badge = "spec 2/5 · interop 2/5 · all rules 2/5, 1 unsupported (corpus 1.2.0)"  # no representation
    assert json.loads(render_badge(rt))["message"] == badge


def test_reports_show_what_the_gate_made_of_each_failure():
    from wireconf.reports.html import render_html
    from wireconf.reports.junit import render_junit
    from wireconf.reports.markdown import render_markdown
    from wireconf.reports.matrix import build_matrix

    matrix = build_matrix(_records())
    markdown = render_markdown(matrix)
    assert "<code>c.known</code> failed (known)" in markdown
    assert "<code>c.regression</code> failed (**regression**)" in markdown
    assert "<code>c.new</code> failed (new (allowed))" in markdown
    assert "1 case(s) listed in the baseline as failing now pass (remove them from it): `c.fixed`" in markdown
    html = render_html(matrix)
    assert '<span class="tag fail" data-baseline="regression">regression</span>' in html
    assert '<span class="tag allowed" data-baseline="new">new (allowed)</span>' in html
    cases = {c.get("name"): c for c in ET.fromstring(render_junit(matrix)).iter("testcase")}
    assert cases["c.regression"].find("failure").get("type") == "regression"
    assert cases["c.new"].find("skipped") is not None  # allowed: the run passed it, as pytest's xfail
    assert cases["c.fixed"].find("failure").get("type") == "fixed"  # it failed the run
    suite = ET.fromstring(render_junit(matrix)).find("testsuite")
    assert (int(suite.get("failures")), int(suite.get("skipped"))) == (2, 4)


def test_reports_name_the_corpus_and_tell_pythons_apart():
    from wireconf.reports.html import render_html
    from wireconf.reports.jsonl import parse_record
    from wireconf.reports.junit import render_junit
    from wireconf.reports.markdown import render_markdown
    from wireconf.reports.matrix import build_matrix

    line = _record("c.pass", "passed").to_json()
    assert parse_record(line, "x:1").corpus_label == "1.2.0 (sha256:00112233aabbccdd)"
    matrix = build_matrix(_records())
    assert "Corpus 1.2.0 (sha256:00112233aabbccdd)." in render_markdown(matrix)
    assert '<span id="corpus">1.2.0 (sha256:00112233aabbccdd)</span>' in render_html(matrix)
    props = {p.get("name"): p.get("value") for p in ET.fromstring(render_junit(matrix)).iter("property")}
    assert props["wireconf.corpus.version"] == "1.2.0"
    assert props["wireconf.corpus.hash"] == "sha256:00112233aabbccdd"
    assert props["wireconf.impl"] == "rt" and props["wireconf.python"] == "3.12"

    # one runtime under two Pythons (a CI matrix): two columns, each named by its Python
    both = build_matrix([_record("c.pass", "passed"), _record("c.pass", "failed", python="3.13")])
    assert [rt.label for rt in both.runtimes] == ["rt 1.0 (Python 3.12)", "rt 1.0 (Python 3.13)"]
    single = build_matrix([_record("c.pass", "passed")])
    assert [rt.label for rt in single.runtimes] == ["rt 1.0"]


def test_merging_keeps_one_verdict_per_case_and_python(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text(
        _record("c", "failed").to_json() + "\n" + _record("c", "passed", python="3.13").to_json() + "\n"
    )
    b.write_text(_record("c", "passed").to_json() + "\n")  # the 3.12 job retried
    from wireconf.reports.jsonl import read_records

    merged = {(r.python, r.id): r.status for r in read_records([a, b])}
    assert merged == {("3.12", "c"): "passed", ("3.13", "c"): "passed"}


# --- attribution in the reports: rules actually broken, unruled differences apart -------------------------


def _difference(path: str, rules: list[str], tier: str | None, api: str = "openai.chat") -> dict:
    return {
        "subject": "request",
        "path": path,
        "change": "unexpected-key",
        "text": f"{path}: unexpected key\n  1. Alabama",
        "signature": f"request {path} unexpected-key",
        "rules": rules,
        "basis": "declared" if rules else "unruled",
        "tier": tier,
        "api": api,
    }


def test_root_causes_group_by_the_rules_broken_and_unruled_differences_have_no_rule_and_no_tier():
    from wireconf.reports.causes import NO_RULE, group_causes

    failures = [
        ("a", [_difference("$.stream", ["7.1.7/no-other-keys"], "spec"), _difference("$.seed", [], None)]),
        ("b", [_difference("$.seed", [], None)]),
        ("c", [_difference("$.seed", [], None, api="anthropic.messages")]),
    ]
    causes = {(c.rules, c.signature, tuple(c.cases)): c for c in group_causes(failures)}
    unruled_chat = causes[((), "request $.seed unexpected-key", ("a", "b"))]
    assert unruled_chat.tier is None and unruled_chat.tier_text == "unruled"
    assert unruled_chat.rules_text() == NO_RULE
    assert ((), "request $.seed unexpected-key", ("c",)) in causes  # another api, another group
    declared = causes[(("7.1.7/no-other-keys",), "request $.stream unexpected-key", ("a",))]
    assert declared.tier_text == "spec" and "more cited" not in declared.rules_text()


def test_a_new_baseline_reason_names_the_rule_broken_and_the_first_line_of_its_difference():
    from wireconf.reports.baseline import default_reason

    differences = [_difference("$.stream", ["7.1.7/no-other-keys"], "spec")]
    diff = "the request body differs:\n  $.max_tokens: unexpected key  (waived by the baseline: harmless)"
    reason = default_reason(["7.1.1/role-copied"], diff, None, differences)
    assert (
        reason == "7.1.7/no-other-keys: $.stream: unexpected key"
    )  # never a waived line, never "1. Alabama"
    unruled = default_reason(["7.1.1/role-copied"], diff, None, [_difference("$.seed", [], None)])
    assert unruled.startswith("no rule requires this: $.seed")
    # without attributed differences (an error): no waived line is taken for the reason
    assert "waived" not in default_reason(["7.1.1/role-copied"], diff, None)


def test_an_unruled_failure_is_counted_apart_and_never_as_conforming_to_the_spec():
    from wireconf.reports.matrix import build_matrix

    records = [
        _record("c.pass", "passed"),
        _record("c.spec", "failed", tier="spec", differences=[_difference("$.stream", ["r/x"], "spec")]),
        _record("c.project", "failed", tier="project", differences=[_difference("$.a", ["r/y"], "project")]),
        _record("c.unruled", "failed", differences=[_difference("$.seed", [], None)]),
    ]
    (rt,) = build_matrix(records).runtimes
    assert rt.tiers_text() == "1 spec, 0 vectors, 1 project, 1 unruled"
    assert rt.spec_conform == 2  # the pass and the project failure; the unruled one is no claim either way
    assert next(r for r in rt.records if r.id == "c.unruled").broken == []  # never the cited r/x
