"""``wireconf findings`` for a runtime wireconf does not ship (issue 32, item 6): its baseline is written
where ``--baselines`` says, under the name given, and its section's counts are those of its tables, with
no folder of the machine that ran it."""

from __future__ import annotations

import re

import yaml

from tests.conftest import REPO
from tests.integration.test_outcomes import _figures_corpus


def test_findings_judges_a_runtime_not_shipped_and_its_page_counts_what_it_lists(pytester, monkeypatch):
    from wireconf.cli import main

    corpus = _figures_corpus(pytester)  # the adapter module figures_adapter.py sits in pytester.path
    monkeypatch.setenv("PYTHONPATH", f"{pytester.path}:{REPO}")
    baselines, out = pytester.path / "baselines", pytester.path / "page" / "findings.md"
    baselines.mkdir()
    args = ["findings", "--impl", "mine=figures_adapter:adapter", "--baselines", str(baselines)]
    assert main([*args, "--out", str(out), "--cases", str(corpus)]) == 0
    written = yaml.safe_load((baselines / "mine.yaml").read_text(encoding="utf-8"))
    assert (written["impl"], len(written["expected_failures"])) == ("figures", 4), written
    page = out.read_text(encoding="utf-8")
    section = page.split("## figures 1", 1)[1]
    first = section.strip().splitlines()[0]
    by_difference = section.split("### Root causes by difference", 1)[1].split(
        "### Cases by baseline reason\n", 1
    )[0]
    rows = [line for line in by_difference.splitlines() if re.match(r"\| \d+ \|", line)]
    assert (
        f"Root causes: {len(rows)} by difference, 0 explained (0 proved by their reproduction), 5 case(s)"
        " whose baseline reason is not reviewed yet." in (first)
    ), first
    assert "1 of 6 judged cases pass; 4 fail and 1 could not be judged (error)" in first
    for place in (str(pytester.path), str(REPO)):
        assert place not in page, place
    assert out.with_suffix(".html").is_file()


def test_shards_run_apart_and_their_reports_make_the_same_page(pytester, monkeypatch, capsys):
    """``--shard I/N --reports DIR`` runs a share of the runtimes (a line of progress each) and writes no
    page; ``--from-reports`` writes from every shard's reports the page one run of them all writes."""
    from wireconf.cli import main

    corpus = _figures_corpus(pytester)
    monkeypatch.setenv("PYTHONPATH", f"{pytester.path}:{REPO}")
    baselines = pytester.path / "baselines"
    baselines.mkdir()
    impls = ["--impl", "one=figures_adapter:adapter", "--impl", "two=figures_adapter:adapter"]
    common = [*impls, "--baselines", str(baselines), "--cases", str(corpus)]
    whole = pytester.path / "whole" / "findings.md"
    assert main(["findings", *common, "--out", str(whole)]) == 0
    capsys.readouterr()
    for index in (1, 2):
        reports = pytester.path / f"shard{index}"
        assert main(["findings", *common, "--shard", f"{index}/2", "--reports", str(reports)]) == 0
        progress = capsys.readouterr().err
        assert re.search(r"^\[1/1\] (one|two): 6 cases, 5 failing \(\d+ s, \d+ s in all\)$", progress, re.M)
        assert len(list(reports.glob("*.jsonl"))) == 1
    assert not (pytester.path / "docs").exists()
    merged = pytester.path / "merged" / "findings.md"
    from_reports = [
        "--from-reports",
        str(pytester.path / "shard1"),
        "--from-reports",
        str(pytester.path / "shard2"),
    ]
    assert main(["findings", *common, *from_reports, "--out", str(merged)]) == 0
    assert merged.read_text(encoding="utf-8") == whole.read_text(encoding="utf-8")
    assert main(["findings", *common, "--shard", "1/2"]) == 2  # a shard's reports must be kept
