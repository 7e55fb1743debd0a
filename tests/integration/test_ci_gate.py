"""The CI regression gate (``--baseline``, ``--update-baseline``), the ``--report`` file, ``--shard`` and
xdist: what a runtime's CI sees."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import CASES, REPO, CorpusRun, small_corpus
from tests.fakes import sends_max_tokens
from wireconf.corpus.identity import declared_version
from wireconf.reports.jsonl import read_records

BROKEN = sends_max_tokens.BROKEN_RULE
FAKE = "--impl=tests.fakes.sends_max_tokens:adapter"


@pytest.fixture
def broken(corpus) -> set[str]:
    return {case.id for case in corpus.cases_citing(BROKEN)}


@pytest.fixture(scope="module")
def made_once() -> dict[str, Any]:
    """Runs that several tests of this module only read, made by the first test that needs each (a run
    of the whole corpus costs seconds); they live in folders of their own, apart from any test's."""
    return {}


@pytest.fixture
def fake_updated(run_corpus, made_once, tmp_path_factory) -> tuple[CorpusRun, Path, Path]:
    """The fake's run of the whole corpus with ``--update-baseline`` into a new file and a
    ``--report``: the run, the baseline it wrote, its report."""
    if "fake_updated" not in made_once:
        folder = tmp_path_factory.mktemp("fake-updated")
        baseline, report = folder / "new.yaml", folder / "run.jsonl"
        run = run_corpus(FAKE, f"--baseline={baseline}", "--update-baseline", f"--report={report}")
        made_once["fake_updated"] = (run, baseline, report)
    return made_once["fake_updated"]


def write_baseline(path, entries: dict[str, str], impl: str = "sends-max-tokens"):
    path.write_text(yaml.safe_dump({"impl": impl, "version": "0.0.1", "expected_failures": entries}))
    return path


def test_listed_failures_are_let_pass_and_an_unlisted_one_fails_the_run(run_corpus, broken, tmp_path):
    """The plugin applies the gate's decisions (``decide``, unit-tested in test_gate_policy.py) to
    pytest's reports: a listed failure is xfailed with its reason, an unlisted one fails the run with
    its diff, and both stay failures in the tally and the report."""
    wire_broken = sorted(c for c in broken if c.startswith("wire.openai.chat."))
    left_out = wire_broken[0]
    baseline = write_baseline(tmp_path / "b.yaml", {c: "known" for c in wire_broken if c != left_out})
    report = tmp_path / "run.jsonl"
    run = run_corpus(FAKE, *SELECTION, f"--baseline={baseline}", f"--report={report}")
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    assert run.with_outcome("failed") == set(wire_broken)  # still deviations in the conformance tally
    assert not run.with_outcome("error")
    assert BROKEN in run.longreprs[left_out]  # the unlisted failure shows its diff as usual
    records = _records(report)
    assert all(records[c]["baseline"] == "expected" and records[c]["accepted"] for c in wire_broken[1:])
    assert not records[left_out].get("accepted")


def test_a_listed_case_that_now_passes_fails_the_run_until_updated(run_corpus, broken, tmp_path):
    fixed = "wire.openai.chat.single-text-part-is-string"
    wire_broken = {c for c in broken if c.startswith("wire.openai.chat.")}
    entries = {**{c: "known" for c in wire_broken}, fixed: "was broken once"}
    baseline = write_baseline(tmp_path / "b.yaml", entries)
    report = tmp_path / "run.jsonl"
    run = run_corpus(FAKE, *SELECTION, f"--baseline={baseline}", f"--report={report}")
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    assert run.outcomes[fixed] == "passed"  # the tally counts it as the pass it is
    (line,) = [x for x in map(json.loads, report.read_text().splitlines()) if x["id"] == fixed]
    assert line["baseline"] == "fixed"
    assert "is listed in the baseline" in line["message"] and "now passes" in line["message"]

    updated = run_corpus(FAKE, *SELECTION, f"--baseline={baseline}", "--update-baseline")
    assert updated.ret == 0
    data = yaml.safe_load(baseline.read_text())
    assert set(data["expected_failures"]) == wire_broken
    records = _records(report)
    for case, reason in data["expected_failures"].items():  # "known" names no rule: not kept
        broken = {rule for d in records[case]["differences"] for rule in d["rules"]}
        assert set(reason.split(": ", 1)[0].split(", ")) <= broken, (case, reason)
    case = sorted(wire_broken)[0]
    words = data["expected_failures"][case] + " (a person's words)"  # true still: kept
    data["expected_failures"][case] = words
    baseline.write_text(yaml.safe_dump(data))
    assert run_corpus(FAKE, *SELECTION, f"--baseline={baseline}", "--update-baseline").ret == 0
    assert yaml.safe_load(baseline.read_text())["expected_failures"][case] == words
    assert run_corpus(FAKE, *SELECTION, f"--baseline={baseline}").ret == 0


def test_update_baseline_writes_a_new_file_with_reasons(fake_updated, broken):
    run, baseline, _ = fake_updated
    assert run.ret == 0
    data = yaml.safe_load(baseline.read_text())
    assert data["impl"] == "sends-max-tokens" and data["version"] == "0.0.1"
    assert set(data["expected_failures"]) == broken
    reason = data["expected_failures"]["wire.openai.chat.option-max-output-tokens"]
    assert reason.startswith(BROKEN) and "max_completion_tokens" in reason


def test_update_keeps_entries_of_cases_that_did_not_run(run_corpus, broken, tmp_path):
    baseline = write_baseline(tmp_path / "b.yaml", {c: "known" for c in broken})
    run_corpus(FAKE, f"--baseline={baseline}", "--update-baseline", "-k", "stream")
    assert set(yaml.safe_load(baseline.read_text())["expected_failures"]) == broken


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("expected_failures: [a, b]", "*`expected_failures` must map case ids to reasons*"),
        ("expected_failures: {wire.x: ''}", "*entry 'wire.x' needs a reason*"),
        ("cases: {}", "*unknown key(s) cases*"),
    ],
)
def test_a_malformed_baseline_is_a_usage_error_naming_the_file(pytester, tmp_path, content, message):
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    result = pytester.runpytest(str(CASES), f"--baseline={path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--baseline {path}: {message.strip('*')}*"])


@pytest.mark.parametrize("option", ["--update-baseline", "--allow-new-failures"])
def test_the_gate_s_options_need_a_file(pytester, option):
    result = pytester.runpytest(str(CASES), option)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{option} needs --baseline FILE*"])


def test_report_has_one_line_per_case_with_verdict_rules_and_diff(fake_updated, corpus, broken):
    _, _, report = fake_updated
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    assert sorted(line["id"] for line in lines) == sorted(c.id for c in corpus.cases())
    by_id = {line["id"]: line for line in lines}
    failing = by_id["wire.openai.chat.option-max-output-tokens"]
    assert failing["impl"] == "sends-max-tokens" and failing["version"] == "0.0.1"
    assert failing["status"] == "failed" and BROKEN in failing["rules"]
    assert "$.max_tokens: unexpected key (got 256)" in failing["diff"]
    assert failing["location"].startswith("cases/wire/openai.chat/options.yaml:")
    assert {k for k, v in by_id.items() if v["status"] == "failed"} == broken
    assert all(line["duration"] >= 0 for line in lines)


def test_report_gives_the_reason_of_unsupported_cases(run_corpus, tmp_path):
    report = tmp_path / "run.jsonl"
    run_corpus(
        "--impl=tests.fakes.wire_only:adapter",
        f"--report={report}",
        "-k",
        "stream.openai.chat.real-text-deltas",
    )
    (line,) = [json.loads(x) for x in report.read_text().splitlines()]
    assert line["status"] == "unsupported"
    assert "stream:openai.chat not supported by wire-only" in line["reason"]


def test_shards_split_the_run_and_merge_back_into_one_report(run_corpus, corpus, tmp_path):
    parts = []
    for index in (1, 2, 3):
        report = tmp_path / f"shard{index}.jsonl"
        run_corpus(FAKE, f"--shard={index}/3", f"--report={report}")
        parts.append({json.loads(x)["id"] for x in report.read_text().splitlines()})
    assert all(parts)  # every shard got some cases
    assert sum(len(p) for p in parts) == len(set().union(*parts))  # no case twice
    assert set().union(*parts) == {c.id for c in corpus.cases()}  # none lost
    merged = read_records(tmp_path / f"shard{i}.jsonl" for i in (1, 2, 3))
    assert len(merged) == len(list(corpus.cases()))


def test_a_malformed_shard_is_a_usage_error(pytester):
    result = pytester.runpytest(str(CASES), "--shard=4/3")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--shard '4/3': i must be between 1 and n*"])


def test_xdist_workers_report_through_the_controller(pytester, corpus, broken, tmp_path, monkeypatch):
    pytest.importorskip("xdist")
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    report, baseline = tmp_path / "x.jsonl", write_baseline(tmp_path / "b.yaml", {c: "known" for c in broken})
    result = pytester.runpytest_subprocess(
        str(CASES),
        "-n",
        "2",
        "-p",
        "no:cacheprovider",
        FAKE,
        "--api=openai.chat",  # every broken case, and a few hundred more for the two workers to share
        f"--report={report}",
        f"--baseline={baseline}",
        "--case-timeout=60",  # verdicts, not speed: a loaded machine must not turn a case into an error
    )
    assert result.ret == 0
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    selected = [case for case in corpus.cases() if case.api == "openai.chat"]
    assert broken <= {case.id for case in selected}
    assert len(lines) == len(selected)  # one line per case, none twice
    assert {x["id"] for x in lines} == {case.id for case in selected}
    assert {x["id"] for x in lines if x["status"] == "failed"} == broken
    assert all(x.get("baseline") == "expected" for x in lines if x["status"] == "failed")
    result.stdout.fnmatch_lines(
        [
            f"*{len(broken)} expected failure(s), 0 regression(s), 0 new failure(s), "
            "0 listed case(s) now passing*"
        ]
    )


# --- the gate's history: regressions, new failures, changed cases, files from before passes were kept

SELECTION = ("--kind=wire", "--api=openai.chat")
GATE_RULES = """\
rules:
  - id: 7.1.7/model-from-agent
    level: MUST
    basis: pseudocode
    source: {seed: s, section: 7.1.7}
    statement: model is agent.model.id.
"""
GATE_CASE = """\
cases:
  - id: wire.openai.chat.model
    kind: wire
    api: openai.chat
    rules: [7.1.7/model-from-agent]
    agent: {{model: {{id: m}}}}
    messages: [{{role: user, content: [{{kind: text, value: Hi}}]}}]
    expect: {{model: {expected}, messages: [{{role: user, content: Hi}}]}}
"""


@pytest.fixture
def reference_baseline(run_corpus, made_once, tmp_path_factory, tmp_path):
    """A baseline written from the reference's run of the openai.chat wire cases: every one passes.
    Written once for the module; each test gets a copy of its own (some edit theirs)."""
    if "reference" not in made_once:
        written = tmp_path_factory.mktemp("reference") / "reference.yaml"
        assert run_corpus(*SELECTION, f"--baseline={written}", "--update-baseline").ret == 0
        made_once["reference"] = written.read_text()
    path = tmp_path / "reference.yaml"
    path.write_text(made_once["reference"])
    return path


def _records(report):
    return {x["id"]: x for x in map(json.loads, report.read_text().splitlines())}


def test_update_records_passed_cases_and_the_corpus(reference_baseline, corpus):
    data = yaml.safe_load(reference_baseline.read_text())
    wire = {c.id for c in corpus.cases() if c.kind == "wire" and c.api == "openai.chat"}
    assert set(data["passed"]) == wire and data["expected_failures"] == {}
    assert all(isinstance(v, str) and len(v) == 10 for v in data["passed"].values())
    assert data["corpus"]["version"] == corpus.catalogue.version
    assert data["corpus"]["hash"].startswith("sha256:")


def test_a_case_that_passed_and_fails_now_is_a_regression(run_corpus, reference_baseline, broken, tmp_path):
    report = tmp_path / "run.jsonl"
    run = run_corpus(
        FAKE, *SELECTION, f"--baseline={reference_baseline}", f"--report={report}", "--allow-new-failures"
    )
    assert run.ret == pytest.ExitCode.TESTS_FAILED  # new failures may be allowed, regressions never
    wire_broken = {c for c in broken if c.startswith("wire.openai.chat.")}
    records = _records(report)
    assert {k for k, x in records.items() if x.get("baseline") == "regression"} == wire_broken
    assert all(not records[k].get("accepted") for k in wire_broken)
    case = sorted(wire_broken)[0]
    assert records[case]["reason"].startswith("it passed when the baseline was written (corpus ")


def test_a_case_that_changed_since_the_baseline_is_new_not_a_regression(pytester, run_corpus, tmp_path):
    root = small_corpus(tmp_path / "corpus", GATE_RULES, "cases.yaml", GATE_CASE.format(expected="m"))
    baseline = tmp_path / "b.yaml"
    assert run_corpus(f"--baseline={baseline}", "--update-baseline", target=root).ret == 0
    assert set(yaml.safe_load(baseline.read_text())["passed"]) == {"wire.openai.chat.model"}

    (root / "cases.yaml").write_text(textwrap.dedent(GATE_CASE.format(expected="other")))  # a new expectation
    report = tmp_path / "run.jsonl"
    run = run_corpus(f"--baseline={baseline}", f"--report={report}", target=root)
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    (record,) = _records(report).values()
    assert record["baseline"] == "new" and "the case changed since the baseline" in record["reason"]


def test_a_baseline_without_passed_cases_cannot_tell_new_from_regression(pytester, broken, tmp_path):
    baseline = write_baseline(tmp_path / "old.yaml", {})  # the format before `passed` existed
    report = tmp_path / "run.jsonl"
    pytester.syspathinsert(REPO)
    result = pytester.runpytest(
        str(CASES), FAKE, *SELECTION, f"--baseline={baseline}", f"--report={report}", "--allow-new-failures"
    )
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # unknown history fails the run even so
    result.stdout.fnmatch_lines(["*does not record passed cases (an older format)*", "*unlisted failure(s)*"])
    records = _records(report)
    assert {k for k, x in records.items() if x.get("baseline")} == {
        c for c in broken if c.startswith("wire.openai.chat.")
    }
    assert {x["baseline"] for x in records.values() if x.get("baseline")} == {"unlisted"}


def test_the_header_names_the_baseline_s_corpus_and_a_change_of_corpus(pytester, reference_baseline):
    data = yaml.safe_load(reference_baseline.read_text())
    data["corpus"] = {"version": "0.9.0", "hash": "sha256:0000000000000000"}
    reference_baseline.write_text(yaml.safe_dump(data))
    result = pytester.runpytest(str(CASES), *SELECTION, f"--baseline={reference_baseline}", "--co")
    result.stdout.fnmatch_lines(
        [
            "wireconf baseline (gate): * for reference *, "
            "written against corpus 0.9.0 (sha256:0000000000000000)*",
            "wireconf baseline: the corpus changed since (0.9.0 (sha256:0000000000000000) -> "
            f"{declared_version(CASES / 'rules.yaml')} *",
        ]
    )
