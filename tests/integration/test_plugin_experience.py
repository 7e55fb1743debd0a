"""What a maintainer sees: the header, the per-api summary, selection by case id, --impl errors, xdist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CASES, REPO
from wireconf.corpus.identity import declared_version
from wireconf.kinds.concepts import needed_concepts

SINGLE = "wire.openai.chat.single-text-part-is-string"
MAX_TOKENS = "--impl=tests.fakes.sends_max_tokens:adapter"


def _summary_rows(lines: list[str]) -> dict[tuple[str, str], list[int]]:
    rows = {}
    for line in lines:
        # passed failed error unsupported skipped, then the failures by tier (spec vectors project) and
        # those no rule declares (unruled)
        match = re.match(
            r"^(openai\.chat)\s+(\w+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)(?:\s+\d+){4}$", line
        )
        if match:
            rows[(match[1], match[2])] = [int(x) for x in match.groups()[2:]]
    return rows


def test_header_names_the_implementation_and_version(pytester):
    result = pytester.runpytest(str(CASES), "-p", "no:cacheprovider", "-k", SINGLE)
    result.stdout.fnmatch_lines(["wireconf *: implementation reference * (entry point reference = *)"])


def test_summary_counts_per_api_and_kind(pytester, corpus):
    pytester.syspathinsert(REPO)
    result = pytester.runpytest(str(CASES), "-p", "no:cacheprovider", "--impl=tests.fakes.wire_only:adapter")
    rows = _summary_rows(result.stdout.lines)
    count = {
        kind: sum(1 for c in corpus.cases() if c.kind == kind and c.api == "openai.chat")
        for kind in ("wire", "process", "stream")
    }
    # it declares no optional concept: the wire cases that use one (MCP tools, bindings...) are unsupported
    lacking = sum(
        1
        for c in corpus.cases()
        if c.kind == "wire" and c.api == "openai.chat" and needed_concepts(c.kind, c.api, c.raw)
    )
    # columns: passed failed error unsupported skipped
    assert rows[("openai.chat", "wire")] == [count["wire"] - lacking, 0, 0, lacking, 0]
    assert rows[("openai.chat", "process")] == [0, 0, 0, count["process"], 0]
    assert rows[("openai.chat", "stream")] == [0, 0, 0, count["stream"], 0]
    result.stdout.fnmatch_lines(["*wireconf conformance*", "implementation: wire-only 0.0.1"])


def test_k_selects_by_case_id(run_corpus):
    run = run_corpus("-k", SINGLE)
    assert run.outcomes == {SINGLE: "passed"}


def test_k_selects_by_rule_and_kind(run_corpus, corpus):
    run = run_corpus("-k", "8.6/refusal-raises")
    assert set(run.outcomes) == {c.id for c in corpus.cases_citing("8.6/refusal-raises")}


def test_kind_and_api_options_select(run_corpus, corpus):
    run = run_corpus("--kind", "stream", "--api", "openai.chat")
    assert set(run.outcomes) == {
        c.id for c in corpus.cases() if c.kind == "stream" and c.api == "openai.chat"
    }
    assert set(run_corpus("--kind", "wire", "--kind", "process").outcomes) == {
        c.id for c in corpus.cases() if c.kind in ("wire", "process")
    }


def test_node_id_runs_one_case(pytester):
    result = pytester.runpytest(
        f"{CASES}/wire/openai.chat/messages.yaml::{SINGLE}", "-p", "no:cacheprovider", "-v"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"*messages.yaml::{SINGLE} PASSED*"])


@pytest.fixture(scope="module")
def max_tokens_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[pytest.RunResult, Path]:
    """The whole corpus against the fake that sends max_tokens, once, in a pytest process of its own
    that keeps its last failures in a cache folder of its own: the first run the ``--lf`` test re-runs
    and the single-process run the xdist test compares with. (The checkout's .pytest_cache is written
    by every run of the corpus; under xdist another worker's run could replace the failures there.)"""
    work = tmp_path_factory.mktemp("max-tokens")
    cache = work / "cache"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", str(CASES), "-o", f"cache_dir={cache}", MAX_TOKENS],
        cwd=work,
        env={**{k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=False,
    )
    return pytest.RunResult(done.returncode, done.stdout.splitlines(), done.stderr.splitlines(), 0.0), cache


def test_last_failed_reruns_only_the_failures(pytester, corpus, max_tokens_run):
    first, cache = max_tokens_run
    failing = len(corpus.cases_citing("7.1.5/max-completion-tokens"))
    untraced = sum(1 for c in corpus.cases() if c.kind == "trace")  # fakes declare no trace:
    first.assert_outcomes(
        failed=failing, passed=sum(1 for _ in corpus.cases()) - failing - untraced + 2, skipped=untraced
    )
    pytester.syspathinsert(REPO)
    again = pytester.runpytest(str(CASES), "-o", f"cache_dir={cache}", "--lf", MAX_TOKENS)
    again.assert_outcomes(failed=failing)


@pytest.mark.parametrize(
    ("impl", "message"),
    [
        ("no_such_module_xyz", "--impl no_such_module_xyz: cannot import module 'no_such_module_xyz'"),
        (
            "tests.fakes.base:Missing",
            "--impl tests.fakes.base:Missing: tests.fakes.base has no attribute 'Missing'",
        ),
        ("tests.fakes.base", "--impl tests.fakes.base: the adapter <module 'tests.fakes.base'"),
    ],
)
def test_bad_impl_is_a_usage_error(pytester, impl, message):
    pytester.syspathinsert(REPO)
    result = pytester.runpytest(str(CASES), f"--impl={impl}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_xdist_summary_matches_a_single_process(pytester, corpus, monkeypatch, max_tokens_run):
    pytest.importorskip("xdist")
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    single = _summary_rows(max_tokens_run[0].outlines)
    spread = _summary_rows(
        pytester.runpytest_subprocess(
            str(CASES), "-p", "no:cacheprovider", MAX_TOKENS, "-n", "2"
        ).stdout.lines
    )
    assert single and spread == single
    wire = [c for c in corpus.cases_citing("7.1.5/max-completion-tokens") if c.kind == "wire"]
    assert single[("openai.chat", "wire")][1] == len(wire)


def test_a_collection_error_elsewhere_does_not_break_the_plugin(pytester):
    """A test module that does not import sits beside the corpus run: pytest reports it as a collection
    error, the plugin's summaries still work (no INTERNALERROR) and the cases still run."""
    pytester.makepyfile(test_broken="import no_such_module_anywhere\n")
    result = pytester.runpytest(
        ".", str(CASES), "-p", "no:cacheprovider", "-k", SINGLE, "--continue-on-collection-errors"
    )
    result.stdout.no_fnmatch_line("*INTERNALERROR*")
    result.stdout.fnmatch_lines(["*wireconf conformance*", "*1 error*"])


def test_wireconf_runs_the_installed_corpus_from_any_directory(pytester):
    """``--wireconf`` from a runtime's repository: the installed corpus replaces pytest's default paths
    (the repository's own tests do not run), node ids are relative to the corpus folder."""
    pytester.makepyfile(test_own="def test_own():\n    pass\n")
    result = pytester.runpytest("--wireconf", "-p", "no:cacheprovider", "-k", SINGLE, "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            f"wireconf corpus {declared_version(CASES / 'rules.yaml')} (sha256:*): {CASES}",
            f"wire/openai.chat/messages.yaml::{SINGLE} PASSED*",
        ]
    )
    result.stdout.no_fnmatch_line("*test_own*")
    # paths on the command line run beside it
    both = pytester.runpytest(
        "--wireconf", "test_own.py", "-p", "no:cacheprovider", "-k", f"{SINGLE} or test_own"
    )
    both.assert_outcomes(passed=2)


def test_the_summary_says_why_pytest_counts_more_items(pytester):
    result = pytester.runpytest(str(CASES), "-p", "no:cacheprovider", "-k", f"{SINGLE} or rules.yaml")
    result.assert_outcomes(passed=3)  # one case and the two checks of the catalogue
    result.stdout.fnmatch_lines(
        [
            "total * 1 * 0 * 0 * 0 * 0",
            "pytest also counts the 2 checks of rules.yaml (catalogue, coverage; 2 passed), "
            "which are not cases",
        ]
    )
