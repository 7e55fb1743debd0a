"""Every report writer survives any string a runtime hands it, and bounds what it shows (issue 27,
items 5 and 8): lone surrogates, U+2028 / U+2029 / U+0085, ANSI codes and U+FFFE, backticks, megabytes
of stderr, exception text and captured output."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import REPO, small_corpus
from tests.integration.test_bad_corpus_files import CASES, _cassette
from tests.integration.test_broken_cassettes import RULES
from tests.integration.test_exec_protocol import PY_SERVE
from wireconf.core.report_text import MAX_CHARS
from wireconf.exec_protocol.client import STDERR_LINE_CHARS
from wireconf.reports.jsonl import CaseRecord, ReportError, read_records
from wireconf.reports.junit import render_junit
from wireconf.reports.markdown import render_markdown
from wireconf.reports.matrix import build_matrix

ODD = (
    "lone \ud800 and \udfff, lines \u2028 \u2029 \u0085 split, "
    "\x1b[31mred\x1b[0m, \ufffe \uffff \x00 \x07, a `tick`"
)


def _record(**changes) -> CaseRecord:
    data = dict(impl="odd", version="1", id="process.openai.chat.x", kind="process", api="openai.chat")
    data |= dict(rules=["8.6/content-deltas"], status="error", duration=0.1)
    return CaseRecord(**(data | changes))


def _odd_run(
    pytester, run_corpus, monkeypatch, text: str, repeat: int = 1, *extra: str
) -> tuple[Path, object]:
    monkeypatch.setenv("WIRECONF_ODD_TEXT", json.dumps(text))
    monkeypatch.setenv("WIRECONF_ODD_REPEAT", str(repeat))
    cassettes = pytester.path / "cassettes"
    _cassette(cassettes, "openai/deep")
    _cassette(cassettes, "openai/fine")
    corpus = small_corpus(pytester.path / "corpus", RULES, "cases.yaml", CASES)
    report = pytester.path / "run.jsonl"
    run = run_corpus(
        "--impl=tests.fakes.odd_strings:adapter",
        f"--cassettes={cassettes}",
        f"--report={report}",
        *extra,
        target=corpus,
    )
    return report, run


def test_a_lone_surrogate_from_a_runtime_does_not_abort_the_report(pytester, run_corpus, monkeypatch):
    report, run = _odd_run(pytester, run_corpus, monkeypatch, ODD)
    assert run.ret != pytest.ExitCode.INTERNAL_ERROR
    assert set(run.outcomes.values()) == {"failed"}, run.outcomes  # the adapter raised
    records = read_records([report])
    assert len(records) == 2, records
    assert all("lone \\ud800 and \\udfff" in (r.message or "") for r in records), records[0].message


def test_line_separators_inside_a_record_do_not_split_it(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text(
        _record(message=ODD).to_json() + "\n" + _record(id="process.openai.chat.y").to_json() + "\n"
    )
    records = read_records([path])
    assert [r.id for r in records] == ["process.openai.chat.x", "process.openai.chat.y"]
    assert "\u2028 \u2029 \u0085" in records[0].message


def test_junit_of_control_characters_and_non_characters_is_well_formed(tmp_path):
    records = [_record(message=ODD, diff=ODD), _record(id="process.openai.chat.y", status="failed", diff=ODD)]
    xml = render_junit(build_matrix(records))
    root = ET.fromstring(xml.encode("utf-8"))  # raises on what XML 1.0 forbids
    error = root.find(".//error")
    assert error is not None and "\\x1b[31mred" in error.text and "\\ufffe" in error.text, error.text


def _code_span_after(line: str, start: int) -> str:
    """The content of the code span that opens at ``start``, as CommonMark reads it: it ends at the
    next run of exactly as many backticks."""
    opening = re.match("`+", line[start:]).group()
    for run in re.finditer("`+", line[start + len(opening) :]):
        if len(run.group()) == len(opening):
            return line[start + len(opening) : start + len(opening) + run.start()]
    raise AssertionError(f"unclosed code span in {line!r}")


def test_markdown_keeps_backticks_inside_code_and_escapes_runtime_names():
    example = "got `a` and ``b`` and a ` lone one"
    difference = {
        "path": "$.x",
        "change": "value",
        "text": f"$.x: {example}",
        "rules": ["8.6/content-deltas"],
    }
    failed = _record(impl="**bold** | pipe", status="failed", diff=example, differences=[difference])
    failed.location = "cases/`weird`.yaml:3"
    markdown = render_markdown(build_matrix([failed]))
    lines = markdown.split("\n")
    header = next(line for line in lines if line.startswith("| kind | api |"))
    assert len(re.findall(r"(?<!\\)\|", header)) == 4, header  # kind, api, one runtime: no cell added
    assert "**bold**" not in markdown
    row = next(line for line in lines if line.startswith("| 1 |"))
    span = _code_span_after(row, row.index("`", row.index("| ? |")))
    assert example.replace("|", "\\|") in span, (span, row)
    location = next(line for line in lines if "weird" in line)
    assert _code_span_after(location, 0).strip() == failed.location, location


def test_wrong_field_types_in_a_report_name_the_line(tmp_path):
    path = tmp_path / "run.jsonl"
    lines = [_record().to_json(), json.dumps({**json.loads(_record().to_json()), "rules": "8.6", "id": "b"})]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReportError, match=r"run\.jsonl:2: `rules` must be a list of strings"):
        read_records([path])
    path.write_text(json.dumps({**json.loads(_record().to_json()), "duration": "slow"}) + "\n")
    with pytest.raises(ReportError, match=r"run\.jsonl:1: `duration` must be a number"):
        read_records([path])


def test_huge_exception_text_and_output_are_cut_in_every_report(pytester, run_corpus, monkeypatch):
    report, run = _odd_run(pytester, run_corpus, monkeypatch, "0123456789", repeat=100_000)  # 1 MB each
    text = run.longreprs["process.openai.chat.fine"]
    assert len(text) < MAX_CHARS + 200 and "more characters]" in text, len(text)
    per_record = 4 * MAX_CHARS  # the message, the diff and the difference quote the exception; the rest
    assert report.stat().st_size < 2 * per_record, report.stat().st_size
    records = read_records([report])
    assert all("… [cut: " in (r.message or "") for r in records)
    junit = render_junit(build_matrix(records))
    assert len(junit) < 6 * MAX_CHARS, len(junit)
    markdown = render_markdown(build_matrix(records))
    assert max(len(line) for line in markdown.split("\n")) < 1200
    assert len(markdown) < 100_000, len(markdown)


def test_pytests_own_junit_xml_carries_every_property_cut(pytester, run_corpus, monkeypatch):
    """``--junitxml`` writes each user property whole: the differences (JSON) quote the runtime's 1 MB
    exception, and are cut string by string like every other report, still JSON."""
    junit = pytester.path / "junit.xml"
    _odd_run(pytester, run_corpus, monkeypatch, "0123456789", 100_000, f"--junitxml={junit}")
    properties = [(p.get("name"), p.get("value") or "") for p in ET.parse(junit).getroot().iter("property")]
    differences = [value for name, value in properties if name == "wireconf_differences"]
    assert differences, properties
    assert max(len(value) for _, value in properties) < 2 * MAX_CHARS, [(n, len(v)) for n, v in properties]
    quoted = [d["text"] for value in differences for d in json.loads(value)]
    assert all("… [cut: " in text for text in quoted if "0123456789" in text), quoted
    assert junit.stat().st_size < 12 * MAX_CHARS, junit.stat().st_size


def test_a_runtime_whose_stderr_line_is_megabytes_long_is_shown_cut(pytester, run_corpus, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # the served runtime imports tests.fakes
    monkeypatch.setenv("WIRECONF_ODD_TEXT", json.dumps("0123456789"))
    monkeypatch.setenv("WIRECONF_ODD_REPEAT", "100000")  # one line of 1 MB
    monkeypatch.setenv("WIRECONF_ODD_CRASH", "1")
    cassettes = pytester.path / "cassettes"
    _cassette(cassettes, "openai/deep")
    _cassette(cassettes, "openai/fine")
    corpus = small_corpus(pytester.path / "corpus", RULES, "cases.yaml", CASES)
    run = run_corpus(
        f"--impl=exec:{PY_SERVE} tests.fakes.odd_strings:adapter", f"--cassettes={cassettes}", target=corpus
    )
    assert set(run.outcomes.values()) == {"error"}, run.outcomes
    texts = list(run.longreprs.values())
    assert all(len(text) < 3 * STDERR_LINE_CHARS + 1000 for text in texts), [len(t) for t in texts]
    assert all("0123456789… [cut: 99" in text for text in texts), texts[0][-3000:]
