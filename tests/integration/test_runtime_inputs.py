"""What a run takes from outside stays where it belongs and fails clearly (issue 27, items 9, 10, 12):
concurrent baseline updates, paths built from a runtime's name, symlinks out of the corpus and cassettes
folders, and inputs that are not what they claim to be."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from tests.conftest import REPO, collect_run, small_corpus
from tests.integration.test_bad_corpus_files import CASES, _cassette
from tests.integration.test_broken_cassettes import RULES

RAISES = "--impl=tests.fakes.raises:adapter"  # fails every process case
DEEP, FINE = "process.openai.chat.on-deep", "process.openai.chat.fine"


def _corpus(pytester):
    cassettes = pytester.path / "cassettes"
    _cassette(cassettes, "openai/deep")
    _cassette(cassettes, "openai/fine")
    return small_corpus(pytester.path / "corpus", RULES, "cases.yaml", CASES), cassettes


class _Interloper:
    """Another run's ``--update-baseline`` of a disjoint selection, done while this run is running."""

    def __init__(self, command: list[str], cwd) -> None:
        self.command, self.cwd = command, cwd

    def pytest_collection_finish(self, session) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        done = subprocess.run(
            self.command, cwd=self.cwd, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


def test_two_concurrent_baseline_updates_keep_both_runs_entries(pytester):
    corpus, cassettes = _corpus(pytester)
    baseline = pytester.path / "baseline.yaml"
    common = [str(corpus), RAISES, f"--cassettes={cassettes}", f"--baseline={baseline}", "--update-baseline"]
    other = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *common, "-k", "fine"]
    pytester.syspathinsert(REPO)
    reprec = pytester.inline_run(
        *common, "-p", "no:cacheprovider", "-k", "deep", plugins=[_Interloper(other, pytester.path)]
    )
    assert collect_run(reprec).outcomes == {DEEP: "failed"}
    written = yaml.safe_load(baseline.read_text())
    assert set(written["expected_failures"]) == {DEEP, FINE}, written


def test_a_baseline_that_is_not_utf8_or_is_a_folder_is_a_usage_error(pytester):
    pytester.syspathinsert(REPO)
    corpus, _ = _corpus(pytester)
    binary = pytester.path / "binary.yaml"
    binary.write_bytes(b"\xff\xfe\x00i\x00m\x00p\x00l\x00")
    for path, said in ((binary, "not UTF-8"), (pytester.path / "cassettes", "is a folder")):
        result = pytester.runpytest_inprocess(
            str(corpus), "--impl=reference", f"--baseline={path}", "-p", "no:cacheprovider"
        )
        text = result.stdout.str() + result.stderr.str()
        assert result.ret == pytest.ExitCode.USAGE_ERROR, text[-2000:]
        assert "INTERNALERROR" not in text and said in text and str(path) in text, text[-2000:]


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "soon"])
def test_a_case_timeout_that_is_not_a_positive_number_is_refused(pytester, value):
    pytester.syspathinsert(REPO)
    corpus, _ = _corpus(pytester)
    result = pytester.runpytest_inprocess(
        str(corpus), "--impl=reference", f"--case-timeout={value}", "-p", "no:cacheprovider"
    )
    text = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR, text[-2000:]
    assert "--case-timeout" in text and "Traceback" not in text, text[-2000:]


def test_a_rules_file_that_is_not_utf8_is_one_error_naming_it(pytester):
    corpus, cassettes = _corpus(pytester)
    rules = corpus / "rules.yaml"
    rules.write_bytes(rules.read_bytes().replace(b"Content deltas", b"Content \xe9 deltas"))  # Latin-1
    pytester.syspathinsert(REPO)
    reprec = pytester.inline_run(
        str(corpus), "--impl=reference", f"--cassettes={cassettes}", "-p", "no:cacheprovider"
    )
    failed = [str(r.longrepr) for r in reprec.getreports("pytest_runtest_logreport") if r.failed]
    failed += [str(r.longrepr) for r in reprec.getreports("pytest_collectreport") if r.failed]
    assert len(failed) == 1 and "rules.yaml" in failed[0] and "not UTF-8" in failed[0], failed
    assert set(collect_run(reprec).outcomes.values()) == {"unsupported"}  # not judged without their rules


def _failures(reprec) -> list[str]:
    failed = [str(r.longrepr) for r in reprec.getreports("pytest_runtest_logreport") if r.failed]
    return failed + [str(r.longrepr) for r in reprec.getreports("pytest_collectreport") if r.failed]


SELECTIONS = {
    "-k": ["-k", FINE],
    "--shard": ["--shard", "2/2"],
    "--kind": ["--kind", "process"],
    "a path": ["{corpus}/cases.yaml"],
}
"""Selections that leave the catalogue's own check out (the shard that holds it is 1/2 here)."""


@pytest.mark.parametrize("selection", SELECTIONS)
def test_a_rules_file_that_cannot_be_read_fails_the_run_under_any_selection(pytester, selection):
    corpus, cassettes = _corpus(pytester)
    rules = corpus / "rules.yaml"
    rules.write_bytes(rules.read_bytes().replace(b"Content deltas", b"Content \xe9 deltas"))  # Latin-1
    pytester.syspathinsert(REPO)
    selected = [arg.format(corpus=corpus) for arg in SELECTIONS[selection]]
    target = [] if selection == "a path" else [str(corpus)]
    reprec = pytester.inline_run(
        *target, "--impl=reference", f"--cassettes={cassettes}", "-p", "no:cacheprovider", *selected
    )
    failed = _failures(reprec)
    assert len(failed) == 1 and "rules.yaml" in failed[0] and "not UTF-8" in failed[0], failed
    assert reprec.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize("selection", ["-k", "--kind"])
def test_a_case_file_that_cannot_be_read_fails_the_run_under_any_selection(pytester, selection):
    corpus, cassettes = _corpus(pytester)
    (corpus / "broken.yaml").write_bytes(b"cases:\n  - id: caf\xe9\n")
    pytester.syspathinsert(REPO)
    reprec = pytester.inline_run(
        str(corpus), "--impl=reference", f"--cassettes={cassettes}", "-p", "no:cacheprovider",
        *SELECTIONS[selection],
    )  # fmt: skip
    failed = _failures(reprec)
    assert len(failed) == 1 and "broken.yaml" in failed[0] and "not UTF-8" in failed[0], failed
    assert collect_run(reprec).outcomes[FINE] == "passed"  # the other cases are judged all the same
    assert reprec.ret == pytest.ExitCode.TESTS_FAILED


def test_a_case_file_symlinked_from_outside_the_corpus_is_refused(pytester, run_corpus):
    corpus, cassettes = _corpus(pytester)
    outside = pytester.path / "elsewhere.yaml"
    outside.write_text(
        CASES.replace("on-deep", "from-outside").replace("openai.chat.fine", "openai.chat.also")
    )
    (corpus / "linked.yaml").symlink_to(outside)
    run = run_corpus("--impl=reference", f"--cassettes={cassettes}", target=corpus)
    assert "process.openai.chat.from-outside" not in run.outcomes, run.outcomes
    problem = next(iter(run.problems.values()), "")
    assert "linked.yaml" in problem and "out of the corpus" in problem, run.problems
    assert run.outcomes[FINE] == "passed"


def test_a_cassette_symlinked_from_outside_the_cassettes_folder_is_refused(pytester, run_corpus):
    corpus, cassettes = _corpus(pytester)
    outside = pytester.path / "elsewhere.yaml"
    (cassettes / "openai" / "fine.yaml").rename(outside)
    (cassettes / "openai" / "fine.yaml").symlink_to(outside)
    run = run_corpus("--impl=reference", f"--cassettes={cassettes}", target=corpus)
    assert run.outcomes == {FINE: "error", DEEP: "passed"}, run.outcomes
    assert "leads out of the cassettes folder" in run.longreprs[FINE], run.longreprs[FINE]


def test_no_cassette_is_recorded_through_a_symlinked_provider_folder(tmp_path):
    from wireconf.cassettes.store import CassetteError, CassetteStore

    root, outside = tmp_path / "cassettes", tmp_path / "elsewhere"
    root.mkdir()
    outside.mkdir()
    (root / "openai").symlink_to(outside, target_is_directory=True)
    with pytest.raises(CassetteError, match="leads out of the cassettes folder"):
        CassetteStore(root).path_of("openai/new-recording")  # where e2e records a new cassette
    (root / "google").mkdir()
    assert CassetteStore(root).path_of("google/new-recording") == root / "google" / "new-recording.yaml"


def test_a_badge_path_built_from_a_runtime_name_stays_in_its_folder(tmp_path, monkeypatch):
    from tests.integration.test_report_strings import _record
    from wireconf.cli import main

    monkeypatch.chdir(tmp_path)
    report = tmp_path / "run.jsonl"
    report.write_text(_record(impl="../../../X/pwn", status="passed").to_json() + "\n")
    assert main(["report", str(report), "--badge", "out/nested/{impl}.json"]) == 0
    written = [p for p in tmp_path.rglob("*.json")]
    assert len(written) == 1 and written[0].parent == tmp_path / "out" / "nested", written
    assert (
        "pwn" in written[0].name and json.loads(written[0].read_text())["label"] == "wireconf ../../../X/pwn"
    )
