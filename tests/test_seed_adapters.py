"""The adapters for the systems of seeds 002-004 (luthien, agentflow, nat): they skip with their reason
when the runtime is missing, and against fakes written from the documents they run the corpus and
report the documents' known gaps as failures with diffs."""

from __future__ import annotations

import sys

import pytest

from harness.adapters.agentflow import AgentflowAdapter, message_as_data
from harness.adapters.nat import NatAdapter
from harness.impl_loader import load_impl


def test_missing_runtime_loads_but_declares_nothing_and_says_why():
    impl = load_impl("luthien")
    assert impl.capabilities == frozenset()
    assert "luthien_proxy.v2.streaming is not importable" in impl.unavailable


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the Python-version guard applies below 3.12")
def test_agentflow_names_the_python_it_needs():
    adapter = AgentflowAdapter()
    assert adapter.capabilities() == set()
    assert "Python >= 3.12" in adapter.unavailable


def test_unavailable_runtime_skips_every_case_with_its_reason(run_corpus):
    run = run_corpus("--impl=luthien", "-k", "blocks.openai.chat.real-two-parallel")
    assert run.outcomes == {"blocks.openai.chat.real-two-parallel-tool-calls": "unsupported"}
    assert "luthien is unavailable here" in run.longreprs["blocks.openai.chat.real-two-parallel-tool-calls"]


def test_luthien_fake_from_the_document_breaks_exactly_the_project_decisions(run_corpus):
    run = run_corpus("--impl=tests.fakes.luthien_streaming:adapter", "-k", "blocks and openai")
    # The document's own rules hold where its assumptions hold ...
    assert {
        "blocks.openai.chat.real-two-parallel-tool-calls",
        "blocks.openai.chat.empty-content-in-tool-phase-stripped",
        "blocks.openai.chat.malformed-and-empty-fragments-kept-raw",
    } <= run.with_outcome("passed")
    # ... and real traffic shows where they do not: the loop stops before the usage chunk.
    text = run.longreprs["blocks.openai.chat.real-text-stream-with-usage-chunk"]
    assert "blocks/chunks-after-finish" in text
    assert "$[14]: missing item" in text
    assert "blocks.openai.chat.three-completions-in-one-chunk" in run.with_outcome("failed")
    assert run.with_outcome("error") == set()


def test_agentflow_fake_passes_responses_and_fails_empty_partials(run_corpus):
    run = run_corpus("--impl=tests.fakes.agentflow_llm:adapter", "-k", "convert")
    assert "convert.openai.chat.real-tool-call-content-null" in run.with_outcome("passed")
    assert "convert.openai.chat.reasoning-content-and-cached-tokens" in run.with_outcome("passed")
    text = run.longreprs["convert.openai.chat.real-stream-tool-call-from-fragments"]
    assert "convert/no-empty-partials" in text
    assert run.with_outcome("error") == set()


def test_message_as_data_keeps_partials_to_role_delta_content():
    class Text:
        type, text = "text", "Hi"

    class Partial:
        role, delta, content, metadata, tools_calls, usages = (
            "assistant",
            True,
            [Text()],
            {"model": "m"},
            None,
            None,
        )

    assert message_as_data(Partial()) == {
        "role": "assistant",
        "delta": True,
        "content": [{"type": "text", "text": "Hi"}],
    }


def test_nat_adapter_routes_events_to_the_registries():
    calls = []

    class Extractor:
        def extract_tool_result(self, data):
            calls.append(("tool", data))
            return "r"

    class Nat:
        __version__ = "t"

        def register_anthropic_messages_v1(self):
            calls.append("anthropic")

        def register_gemini_generate_content_v1(self):
            calls.append("gemini")

        def resolve_tool_extractor(self, schema):
            calls.append(("resolve", schema))
            return Extractor()

    adapter = NatAdapter(module=Nat())
    event = {
        "kind": "scope",
        "scope_category": "end",
        "category": "tool",
        "data_schema": None,
        "data": {"a": 1},
    }
    assert adapter.extract("openai.chat", None, event) == {"tool_result": "r"}
    assert calls == ["anthropic", "gemini", ("resolve", None), ("tool", {"a": 1})]


def test_nat_runs_the_extract_cases_when_installed(run_corpus):
    pytest.importorskip("nat.atof.extractors")
    run = run_corpus("--impl=nat", "-k", "extract")
    assert run.outcomes and set(run.outcomes.values()) <= {"passed", "failed"}
    assert "extract.openai.chat.real-one-tool-call-content-null" in run.with_outcome("passed")
    for case in run.with_outcome("failed"):
        assert "differs from the expectation" in run.longreprs[case]
