"""``wireconf report`` reads JSON-lines files from anywhere: input it cannot read (nested deeper than
a record can be, not UTF-8) is one ``ReportError`` naming the file and line, never a traceback."""

from __future__ import annotations

import json

import pytest

from wireconf.cli import main
from wireconf.core.errors import WireconfError
from wireconf.reports.jsonl import MAX_DEPTH, CaseRecord, ReportError, read_records

RECORD = CaseRecord(impl="x", version="1", id="process.openai.chat.x", kind="process", api="openai.chat",
                    rules=["8.6/content-deltas"], status="passed", duration=0.1)  # fmt: skip


def _nested(depth: int) -> str:
    """A record whose ``extra`` field nests ``depth`` lists."""
    return json.dumps({**json.loads(RECORD.to_json()), "nested": "@"}).replace(
        '"@"', "[" * depth + "]" * depth
    )


@pytest.mark.parametrize("depth", [100_000, 2 * MAX_DEPTH])
def test_a_line_nested_deeper_than_a_record_is_refused_naming_it(tmp_path, depth):
    """100,000 levels: deeper than the JSON parser follows; twice the bound: deeper than a record."""
    path = tmp_path / "run.jsonl"
    path.write_text(RECORD.to_json() + "\n" + _nested(depth) + "\n")
    with pytest.raises(
        ReportError, match=r"run\.jsonl:2: nested deeper than a report record can be"
    ) as raised:
        read_records([path])
    assert isinstance(raised.value, WireconfError)


def test_a_record_as_deep_as_the_bound_is_read(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text(_nested(MAX_DEPTH - 1) + "\n")
    assert [r.id for r in read_records([path])] == [RECORD.id]


def test_a_report_that_is_not_utf8_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_bytes(RECORD.to_json().encode() + b"\n" + RECORD.to_json().encode().replace(b"x", b"\xe9"))
    with pytest.raises(ReportError, match=r"run\.jsonl:2: not UTF-8 text: byte 0xe9"):
        read_records([path])


def test_the_command_says_it_in_one_error(tmp_path, capsys):
    path = tmp_path / "run.jsonl"
    path.write_text(_nested(100_000) + "\n")
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert "run.jsonl:1: nested deeper than a report record can be" in err and "Traceback" not in err, err
