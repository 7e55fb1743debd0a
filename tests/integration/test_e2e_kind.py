"""The e2e kind in replay: the official SDK client over a cassette, the request body and the result
judged exactly, and every way a runtime can misuse the exchange reported plainly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CASES, small_corpus
from wireconf.adapter_contract import APIS
from wireconf.kinds.e2e import E2eCase

RULES = """\
rules:
  - id: 7.1.7/model-from-agent
    level: MUST
    basis: pseudocode
    source: {seed: s7.txt, section: 7.1.7}
    statement: model is agent.model.id.
"""


def e2e_ids(corpus) -> set[str]:
    return {case.id for case in corpus.cases() if case.kind == "e2e"}


def test_every_api_has_e2e_cases_plain_and_streaming(corpus):
    e2e = [case for case in corpus.cases() if case.kind == "e2e"]
    assert {case.api for case in e2e} == set(APIS)
    streamed = {case.api for case in e2e if case.model.incremental}
    assert streamed == {"openai.chat", "openai.responses", "anthropic.messages", "gemini.generate_content"}


def test_e2e_cases_pass_on_the_reference_with_the_network_blocked(corpus, run_corpus, monkeypatch):
    # base URLs that would reach nothing: the cases must not need them, and the guard would name them
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:9")
    run = run_corpus("--kind=e2e")
    assert e2e_ids(corpus) and run.outcomes == dict.fromkeys(e2e_ids(corpus), "passed")


@pytest.mark.parametrize(
    ("case", "host"),
    [
        ("e2e.openai.chat.text-reply", "api.openai.com"),
        ("e2e.openai.embeddings.single-text", "api.openai.com"),
        ("e2e.anthropic.messages.system-lifted", "api.anthropic.com"),
        ("e2e.gemini.generate_content.tool-as-json-schema", "generativelanguage.googleapis.com"),
    ],
)
def test_a_runtime_that_builds_its_own_client_is_an_error_naming_the_host(run_corpus, case, host):
    run = run_corpus("--impl=tests.fakes.e2e_misbehaving:own_client", "-k", case)
    assert run.outcomes == {case: "error"}  # a network attempt is no verdict, never a rule's failure
    text = run.longreprs[case]
    assert "the network is blocked while a runtime runs, and it tried to reach:" in text
    assert f"resolve {host}:443" in text


def test_no_e2e_case_passes_with_a_client_of_the_runtimes_own(corpus, run_corpus):
    run = run_corpus("--impl=tests.fakes.e2e_misbehaving:own_client", "--kind=e2e")
    # most reach for the network (an error); a few never get to send anything (a failure)
    assert run.with_outcome("error") | run.with_outcome("failed") == e2e_ids(corpus)
    assert len(run.with_outcome("error")) > len(run.with_outcome("failed"))


def test_an_unmatched_anthropic_request_shows_the_route_and_the_body_diff(run_corpus):
    case = "e2e.anthropic.messages.system-lifted"
    run = run_corpus("--impl=tests.fakes.e2e_misbehaving:always_streams", "-k", case)
    text = run.longreprs[case]
    assert (
        "request 1 (POST https://api.anthropic.com/v1/messages) matches no recorded interaction of cassette "
        "anthropic/anthropic__01__logfire__test_sync_messages_version_latest_i0 ("
    ) in text
    assert (
        "nearest: interaction 0 (POST https://api.anthropic.com/v1/messages): stream true ≠ recorded false"
        in text
    )
    assert "the body sent differs from the recorded request's (expected = recorded):" in text
    assert "$.stream: unexpected key (got true)" in text
    assert "the result is not judged" in text


def test_an_unmatched_gemini_request_shows_the_path_and_the_body_diff(run_corpus):
    case = "e2e.gemini.generate_content.structured-output"
    run = run_corpus("--impl=tests.fakes.e2e_misbehaving:other_model", "-k", case)
    text = run.longreprs[case]
    assert (
        "request 1 (POST https://generativelanguage.googleapis.com/v1beta/models/gemini-0-other:generateContent)"
        in text
    )
    assert "google/gemini__03__logfire__test_instrument_google_genai_response_schema_i0 (" in text
    assert (
        "path /v1beta/models/gemini-0-other:generateContent"
        " ≠ recorded /v1beta/models/gemini-2.5-flash:generateContent"
    ) in text
    # the recorded client sent an OpenAPI responseSchema; the runtime sent JSON Schema
    assert "the body sent differs from the recorded request's (expected = recorded):" in text
    assert "responseJsonSchema" in text


def test_a_gemini_stream_request_goes_to_the_alt_sse_route(run_corpus):
    case = "e2e.gemini.generate_content.stream-max-tokens-not-an-error"
    run = run_corpus("--impl=tests.fakes.e2e_misbehaving:other_model", "-k", case)
    text = run.longreprs[case]
    assert (
        "request 1 (POST https://generativelanguage.googleapis.com/v1beta/models/gemini-0-other:streamGenerateContent"
        "?alt=sse)"
    ) in text


def test_an_unmatched_request_names_the_cassette_and_the_nearest_recorded_request(run_corpus):
    run = run_corpus("--impl=tests.fakes.e2e_misbehaving:wrong_endpoint", "-k", "e2e.openai.chat.stream-text")
    text = run.longreprs["e2e.openai.chat.stream-text"]
    cassette = "openai/chat_stream__01__opentelemetry-python-contrib__test_chat_completion_with_raw_response"
    assert (
        "request 1 (POST https://api.openai.com/v1/responses) matches no recorded interaction of cassette "
        f"{cassette}_streaming_i0 ("
    ) in text
    assert (
        "nearest: interaction 0 (POST https://api.openai.com/v1/chat/completions): "
        "path /v1/responses ≠ recorded /v1/chat/completions; stream false ≠ recorded true"
    ) in text
    assert "the body sent differs from the recorded request's (expected = recorded):" in text
    assert "the request body sent through the SDK differs from the expectation:" in text
    assert "the result is not judged" in text


def test_a_second_request_is_not_answered_twice(run_corpus):
    run = run_corpus("--impl=tests.fakes.e2e_misbehaving:twice", "-k", "e2e.openai.chat.text-reply")
    text = run.longreprs["e2e.openai.chat.text-reply"]
    assert (
        "request 2 (POST https://api.openai.com/v1/chat/completions) matches no recorded interaction" in text
    )
    assert "it matches, but it already answered an earlier request (each answers one)" in text
    assert "the case expects one request through the SDK; the runtime sent 2" in text


def test_a_runtime_that_sends_nothing_fails(run_corpus):
    run = run_corpus("--impl=tests.fakes.e2e_misbehaving:silent", "-k", "e2e.openai.chat.text-reply")
    assert run.outcomes == {"e2e.openai.chat.text-reply": "failed"}
    assert (
        "the runtime sent no request through the SDK client it was handed"
        in run.longreprs["e2e.openai.chat.text-reply"]
    )


def test_a_deviating_body_is_a_diff_against_the_expectation(run_corpus):
    run = run_corpus("--impl=tests.fakes.sends_max_tokens:adapter", "-k", "mapped-options-reach-the-wire")
    text = run.longreprs["e2e.openai.chat.mapped-options-reach-the-wire"]
    assert "the request body sent through the SDK differs from the expectation:" in text
    assert "$.max_completion_tokens: missing key (expected 500)" in text
    assert "$.max_tokens: unexpected key (got 500)" in text
    assert "the result differs" not in text  # the recorded answer was still served and judged: it matches


def test_a_buffering_runtime_is_not_incremental_end_to_end(run_corpus):
    run = run_corpus("--impl=tests.fakes.buffers_stream:adapter", "-k", "e2e.openai.chat.stream-text")
    assert "not incremental" in run.longreprs["e2e.openai.chat.stream-text"]


def _corpus(pytester: pytest.Pytester, case: str) -> Path:
    return small_corpus(pytester.path / "corpus", RULES, "e2e.yaml", case)


def test_a_missing_cassette_is_an_error_that_says_so(pytester, run_corpus):
    root = _corpus(
        pytester,
        """\
        cases:
          - id: e2e.openai.chat.nothing-recorded
            kind: e2e
            api: openai.chat
            rules: [7.1.7/model-from-agent]
            cassette: openai/never-recorded
            agent: {model: {id: m}}
            expect_request: {model: m, messages: []}
            expect: ""
        """,
    )
    run = run_corpus(f"--cassettes={pytester.path / 'cassettes'}", target=root)
    assert run.outcomes == {"e2e.openai.chat.nothing-recorded": "error"}
    text = run.longreprs["e2e.openai.chat.nothing-recorded"]
    assert (
        "cassette openai/never-recorded not found:" in text and "never-recorded.yaml does not exist" in text
    )
    assert "(record it with --record-mode=once and OPENAI_API_KEY set)" in text


def test_expect_request_is_required_and_the_schema_documents_it():
    assert E2eCase.model_fields["expect_request"].is_required()
    assert "compared exactly" in (E2eCase.model_fields["expect_request"].description or "")


def test_every_e2e_case_names_a_cassette_that_exists():
    from wireconf.corpus.lint import lint
    from wireconf.kinds.registry import open_corpus

    report = lint(open_corpus(CASES))
    assert report.ok, report.problems


def test_a_runtime_that_raises_before_it_sends_is_judged_on_its_error(run_corpus):
    """Nothing reached the provider, so what the runtime raised is its result: its own ValueError where
    the case expects the provider's 404 is a wrong error (8/http-error-raises), beside the request it
    never sent."""
    case = "e2e.openai.chat.model-not-found-raises"
    run = run_corpus("--impl=tests.fakes.e2e_refuses_model:adapter", "-k", case)
    assert run.outcomes == {case: "failed"}
    text = run.longreprs[case]
    assert "the runtime sent no request through the SDK client it was handed" in text
    assert "the result is not judged" not in text
    assert "8/http-error-raises" in text, text
