"""Fake runtimes that each break one rule fail exactly the cases that cite it, with a readable diff;
fake adapters that raise, hang or return junk cost their own cases only."""

from __future__ import annotations

import importlib
import threading

import pytest

from tests.fakes import hangs
from wireconf.kinds.concepts import needed_concepts
from wireconf.providers.registry import APIS

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
    broken = getattr(module, "BROKEN_RULES", None) or (module.BROKEN_RULE,)
    expected = {case.id for rule in broken for case in corpus.cases_citing(rule)}
    assert all(corpus.cases_citing(rule) for rule in broken), f"a rule of {broken} has no case"

    run = run_corpus(f"--impl=tests.fakes.{fake}:adapter")

    assert run.with_outcome("failed") == expected
    assert run.with_outcome("error") == set()
    assert len(run.outcomes) == sum(1 for _ in corpus.cases())
    for case_id in expected:
        assert any(rule in run.longreprs[case_id] for rule in broken)  # the failure names the rule


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


def _e2e(corpus, streaming):
    """The e2e cases whose runtime asks for a stream (``stream: true`` passed through, on an api that
    streams), or not."""

    def streams(case):
        options = case.model.agent.model.options
        asked = bool(options and (options.additionalProperties or {}).get("stream") is True)
        return asked and APIS[case.api].streams

    return {c.id for c in corpus.cases() if c.kind == "e2e" and streams(c) == streaming}


def _processed(case):
    """Whether the processor sees a response: not when the recorded answer is an HTTP error."""
    return "8/http-error-raises" not in case.model.rules


def test_raising_processor_fails_its_cases_with_the_exception_and_the_rest_pass(corpus, run_corpus):
    run = run_corpus("--impl=tests.fakes.raises:adapter")
    cases = {c.id: c for c in corpus.cases()}
    e2e = {i for i in _e2e(corpus, streaming=False) if _processed(cases[i])}
    process = {c.id for c in corpus.cases() if c.kind == "process"} | e2e
    assert run.with_outcome("failed") == process
    untraced = {c.id for c in corpus.cases() if c.kind == "trace"}  # fakes declare no trace:
    assert run.with_outcome("passed") == {c.id for c in corpus.cases()} - process - untraced
    text = run.longreprs["process.openai.chat.real-plain-text"]
    assert "the adapter raised builtins.RuntimeError: processor exploded on purpose" in text
    assert "tests/fakes/raises.py" in text  # the adapter's own frame, not the harness's


def _wait_for_case_threads(before: set[threading.Thread]) -> None:
    """The thread runner's abandoned workers, released, end once their call is done (the session's
    own worker ended with it): wait for those this test started, so that none still runs (and
    imports) while pytester restores ``sys.modules`` after the test."""
    for thread in set(threading.enumerate()) - before:
        if thread.name.startswith("wireconf-case-"):
            thread.join(timeout=120)
            assert not thread.is_alive(), f"{thread.name} still runs after its call was released"


@pytest.mark.parametrize("runner", ["process", "thread"])
def test_hanging_adapter_is_one_error_per_case_and_the_run_goes_on(corpus, run_corpus, runner):
    # the fake hangs in process_stream: chat's stream cases must each be one error, its process cases pass
    hangs.RELEASE.clear()
    before = set(threading.enumerate())
    try:
        run = run_corpus(
            "--impl=tests.fakes.hangs:adapter",
            f"--case-runner={runner}",
            "--case-timeout=0.5",
            "--api=openai.chat",
            "--kind=stream",
            "--kind=process",
        )
    finally:
        hangs.RELEASE.set()
        _wait_for_case_threads(before)
    chat = [c for c in corpus.cases() if c.api == "openai.chat"]
    assert run.with_outcome("error") == {c.id for c in chat if c.kind == "stream"}
    assert run.with_outcome("passed") == {c.id for c in chat if c.kind == "process"}
    assert (
        "did not finish within 0.5 s (--case-timeout)" in run.longreprs["stream.openai.chat.real-text-deltas"]
    )


def test_junk_results_are_errors_naming_what_was_returned(corpus, run_corpus):
    run = run_corpus("--impl=tests.fakes.returns_junk:adapter")
    # wire cases that expect an error still pass: the wrapped reference raises before the junk is built
    junk = {
        c.id
        for c in corpus.cases()
        if c.kind == "process" or (c.kind == "wire" and c.model.expect_error is None)
    }
    e2e = {c.id for c in corpus.cases() if c.kind == "e2e"}  # its execute crashes on its own junk body
    assert run.with_outcome("error") == junk
    assert run.with_outcome("failed") == e2e
    untraced = {c.id for c in corpus.cases() if c.kind == "trace"}  # fakes declare no trace:
    assert run.with_outcome("passed") == {c.id for c in corpus.cases()} - junk - e2e - untraced
    assert "_thread.lock at result, which is not data" in run.longreprs["process.openai.chat.real-plain-text"]
    assert "build_request returned list, not a mapping" in run.longreprs["wire.openai.chat.minimal-request"]


def test_undeclared_capabilities_are_unsupported_not_passed(corpus, run_corpus, pytester):
    run = run_corpus("--impl=tests.fakes.wire_only:adapter")
    chat_wire = {c.id for c in corpus.cases() if c.kind == "wire" and c.api == "openai.chat"}
    # it declares no concept: the chat wire cases with MCP tools, bindings, metadata... are unsupported too
    lacking = {c.id for c in corpus.cases() if c.id in chat_wire and needed_concepts(c.kind, c.api, c.raw)}
    assert lacking and lacking < chat_wire
    assert run.with_outcome("unsupported") == {c.id for c in corpus.cases()} - (chat_wire - lacking)
    assert run.with_outcome("passed") == chat_wire - lacking
    mcp = next(
        c for c in corpus.cases() if c.id in lacking and "mcp-tools" in needed_concepts(c.kind, c.api, c.raw)
    )
    assert "concept:mcp-tools: tools of kind `mcp`" in run.longreprs[mcp.id]
    assert (
        "stream:openai.chat not supported by wire-only"
        in run.longreprs["stream.openai.chat.real-text-deltas"]
    )
