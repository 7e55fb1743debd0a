"""Fake runtimes that each break one rule fail exactly the cases that cite it, with a readable diff;
fake adapters that raise, hang or return junk cost their own cases only."""

from __future__ import annotations

import importlib

import pytest

from tests.fakes import hangs

RULE_BREAKERS = [
    "sends_max_tokens",
    "keeps_empty_detail",
    "sends_empty_tools",
    "none_for_null_content",
    "yields_empty_deltas",
    "buffers_stream",
]


@pytest.mark.parametrize("fake", RULE_BREAKERS)
def test_rule_breaker_fails_exactly_the_cases_of_its_rule(fake, corpus, run_corpus):
    module = importlib.import_module(f"tests.fakes.{fake}")
    expected = {case.id for case in corpus.cases_citing(module.BROKEN_RULE)}
    assert expected, f"no case cites {module.BROKEN_RULE}"

    run = run_corpus(f"--impl=tests.fakes.{fake}:adapter")

    assert run.with_outcome("failed") == expected
    assert run.with_outcome("error") == set()
    assert len(run.outcomes) == sum(1 for _ in corpus.cases())
    for case_id in expected:
        assert module.BROKEN_RULE in run.longreprs[case_id]  # the failure names the rule it breaks


def test_max_tokens_diff_names_both_keys(run_corpus):
    run = run_corpus("--impl=tests.fakes.sends_max_tokens:adapter", "-k", "option-max-output-tokens")
    text = run.longreprs["wire.openai.chat.option-max-output-tokens"]
    assert "$.max_completion_tokens: missing key (expected 256)" in text
    assert "$.max_tokens: unexpected key (got 256)" in text
    assert "cases/wire/openai.chat/options.yaml:" in text


def test_empty_delta_diff_points_at_the_extra_item(run_corpus):
    run = run_corpus("--impl=tests.fakes.yields_empty_deltas:adapter", "-k", "empty-deltas-between-text")
    text = run.longreprs["stream.openai.chat.empty-deltas-between-text"]
    assert 'unexpected item (got "")' in text


def test_buffered_stream_is_reported_as_not_incremental(run_corpus):
    run = run_corpus("--impl=tests.fakes.buffers_stream:adapter", "-k", "real-text-deltas")
    assert "not incremental" in run.longreprs["stream.openai.chat.real-text-deltas"]


def test_raising_processor_fails_its_cases_with_the_exception_and_the_rest_pass(corpus, run_corpus):
    run = run_corpus("--impl=tests.fakes.raises:adapter")
    process = {c.id for c in corpus.cases() if c.kind == "process"}
    assert run.with_outcome("failed") == process
    assert run.with_outcome("passed") == {c.id for c in corpus.cases()} - process
    text = run.longreprs["process.openai.chat.real-plain-text"]
    assert "the adapter raised builtins.RuntimeError: processor exploded on purpose" in text
    assert "tests/fakes/raises.py" in text  # the adapter's own frame, not the harness's


def test_hanging_adapter_is_one_error_per_case_and_the_run_goes_on(corpus, run_corpus):
    try:
        run = run_corpus("--impl=tests.fakes.hangs:adapter", "--case-timeout=0.2")
    finally:
        hangs.RELEASE.set()
    stream = {c.id for c in corpus.cases() if c.kind == "stream"}
    assert run.with_outcome("error") == stream
    assert run.with_outcome("passed") == {c.id for c in corpus.cases()} - stream
    assert (
        "did not return within 0.2 s (--case-timeout)" in run.longreprs["stream.openai.chat.real-text-deltas"]
    )


def test_junk_results_are_errors_naming_what_was_returned(corpus, run_corpus):
    run = run_corpus("--impl=tests.fakes.returns_junk:adapter")
    # wire cases that expect an error still pass: the wrapped reference raises before the junk is built
    junk = {
        c.id
        for c in corpus.cases()
        if c.kind == "process" or (c.kind == "wire" and c.model.expect_error is None)
    }
    assert run.with_outcome("error") == junk
    assert run.with_outcome("passed") == {c.id for c in corpus.cases()} - junk
    assert "_thread.lock at result, which is not data" in run.longreprs["process.openai.chat.real-plain-text"]
    assert "build_request returned list, not a mapping" in run.longreprs["wire.openai.chat.minimal-request"]


def test_undeclared_capabilities_are_unsupported_not_passed(corpus, run_corpus, pytester):
    run = run_corpus("--impl=tests.fakes.wire_only:adapter")
    declared = {c.id for c in corpus.cases() if c.kind == "wire" and c.api == "openai.chat"}
    assert run.with_outcome("unsupported") == {c.id for c in corpus.cases()} - declared
    assert run.with_outcome("passed") == declared
    assert (
        "stream:openai.chat not supported by wire-only"
        in run.longreprs["stream.openai.chat.real-text-deltas"]
    )
