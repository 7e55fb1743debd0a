"""A case whose input cannot be prepared is an error naming the cassette; the other cases still run."""

from __future__ import annotations

import shutil

from tests.conftest import CASES, REPO

RULES = (CASES / "rules.yaml").read_text()


def _corpus(pytester, response: str):
    root = pytester.path / "corpus"
    root.mkdir()
    (root / "rules.yaml").write_text(RULES)
    (root / "c.yaml").write_text(
        "cases:\n"
        "  - id: process.openai.chat.input\n"
        "    kind: process\n"
        "    api: openai.chat\n"
        "    rules: [8.1/content-string]\n"
        "    agent: {model: {id: m}}\n"
        f"    response: {response}\n"
        "    expect: x\n"
        "  - id: wire.openai.chat.fine\n"
        "    kind: wire\n"
        "    api: openai.chat\n"
        "    rules: [7.1.7/model-from-agent]\n"
        "    agent: {model: {id: m}}\n"
        "    expect: {model: m, messages: []}\n"
    )
    shutil.copytree(REPO / "cassettes", pytester.path / "cassettes")
    return root


def test_missing_cassette_is_an_error_naming_it(pytester, run_corpus):
    run = run_corpus(target=_corpus(pytester, "{cassette: openai/not-recorded-yet}"))
    assert run.outcomes == {"process.openai.chat.input": "error", "wire.openai.chat.fine": "passed"}
    assert "cassette openai/not-recorded-yet not found" in run.longreprs["process.openai.chat.input"]


def test_error_response_cannot_be_a_process_input(pytester, run_corpus):
    name = "openai/chat__19__opentelemetry-python-contrib__cassettes_test_chat_completion_404_i0"
    run = run_corpus(target=_corpus(pytester, f"{{cassette: {name}}}"))
    text = run.longreprs["process.openai.chat.input"]
    assert run.outcomes["process.openai.chat.input"] == "error"
    assert f"interaction 0 of cassette {name} (" in text and "is an HTTP 404 error response" in text


def test_stream_cassette_cannot_be_a_process_input(pytester, run_corpus):
    name = "openai/chat_stream__11__mirascope__test_max_tokens_openai_gpt_5_mini_completions_stream_i0"
    run = run_corpus(target=_corpus(pytester, f"{{cassette: {name}}}"))
    assert (
        "is not a non-streaming response; a process case needs one"
        in run.longreprs["process.openai.chat.input"]
    )


def test_broken_cassette_names_file_and_line(pytester, run_corpus):
    root = _corpus(pytester, "{cassette: openai/broken}")
    (pytester.path / "cassettes" / "openai" / "broken.yaml").write_text(
        "interactions:\n- request: {method: [\n"
    )
    run = run_corpus(target=root)
    assert "broken.yaml:3: not valid YAML" in run.longreprs["process.openai.chat.input"]
    assert run.outcomes["wire.openai.chat.fine"] == "passed"
