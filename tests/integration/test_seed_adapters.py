"""The adapters for the systems of seeds 002-004 (luthien, agentflow, nat): they skip with their reason
when the runtime or its entry class is missing, and against fakes written from the documents (which,
like the real systems, take only LiteLLM's objects) they run the corpus and report the documents'
known gaps as failures with diffs. The real luthien and agentflow runs:
tests/integration/test_seed_runtimes.py."""

from __future__ import annotations

import asyncio
import sys

import pytest

from tests.runtime_envs import in_process
from wireconf.adapters.agentflow import AgentflowAdapter, message_as_data
from wireconf.adapters.litellm_objects import UNNAMED_MODEL
from wireconf.adapters.luthien_source import SRC_VARIABLE
from wireconf.adapters.nat import NatAdapter
from wireconf.pytest_plugin.impl_loader import load_impl

LITELLM = in_process("litellm", "litellm")
"""The tests that import LiteLLM (the fakes take its objects): run in its environment by
tests/integration/test_runtime_envs.py, skipped elsewhere."""


def test_missing_runtime_loads_but_declares_nothing_and_says_why(monkeypatch):
    monkeypatch.delenv(SRC_VARIABLE, raising=False)
    impl = load_impl("luthien")
    assert impl.capabilities == frozenset()
    assert "luthien_proxy.v2.streaming.stream_processor is not importable" in impl.unavailable
    assert SRC_VARIABLE in impl.unavailable and "\n" not in impl.unavailable


def _checkout(root, processor_source: str):
    streaming = root / "luthien_proxy" / "v2" / "streaming"
    streaming.mkdir(parents=True)
    for package in (root / "luthien_proxy", root / "luthien_proxy" / "v2", streaming):
        (package / "__init__.py").write_text(
            '__version__ = "9.9"\n' if package.name == "luthien_proxy" else ""
        )
    (streaming / "stream_processor.py").write_text(processor_source)
    return root


def test_a_checkout_without_the_entry_class_is_unavailable_with_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv(SRC_VARIABLE, str(_checkout(tmp_path, "class Other: pass\n")))
    impl = load_impl("luthien")
    assert impl.capabilities == frozenset()
    module = "luthien_proxy.v2.streaming.stream_processor"
    assert impl.unavailable == f"{module} has no StreamProcessor (this checkout predates or dropped it)"


def test_a_folder_without_the_package_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv(SRC_VARIABLE, str(tmp_path))
    impl = load_impl("luthien")
    assert impl.capabilities == frozenset()
    assert impl.unavailable.startswith(f"{SRC_VARIABLE}={tmp_path} has no luthien_proxy package")


@LITELLM
def test_a_checkout_with_the_class_declares_every_blocks_api_and_leaves_no_module_behind(
    tmp_path, monkeypatch
):
    monkeypatch.setenv(SRC_VARIABLE, str(_checkout(tmp_path, "class StreamProcessor: pass\n")))
    impl = load_impl("luthien")
    assert impl.unavailable is None
    assert impl.capabilities == {
        "blocks:openai.chat",
        "blocks:anthropic.messages",
        "blocks:gemini.generate_content",
    }
    assert impl.version == "9.9"  # no PROVENANCE beside it and not a git checkout: the package's own
    assert not [m for m in sys.modules if m.startswith("luthien_proxy")]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the Python-version guard applies below 3.12")
def test_agentflow_names_the_python_it_needs():
    adapter = AgentflowAdapter()
    assert adapter.capabilities() == set()
    assert "Python >= 3.12" in adapter.unavailable
    assert "exec:$(python -m wireconf.envs agentflow) -m wireconf.exec_protocol.serve agentflow" in (
        adapter.unavailable
    )


def test_unavailable_runtime_skips_every_case_with_its_reason(run_corpus, monkeypatch):
    monkeypatch.delenv(SRC_VARIABLE, raising=False)
    run = run_corpus("--impl=luthien", "-k", "blocks.openai.chat.real-two-parallel")
    assert run.outcomes == {"blocks.openai.chat.real-two-parallel-tool-calls": "unsupported"}
    assert "luthien is unavailable here" in run.longreprs["blocks.openai.chat.real-two-parallel-tool-calls"]


@LITELLM
def test_luthien_fake_from_the_document_breaks_exactly_the_project_decisions(run_corpus):
    run = run_corpus("--impl=tests.fakes.luthien_streaming:adapter", "-k", "blocks and openai")
    # The document's own rules hold where its assumptions hold (LiteLLM's chunks of those streams) ...
    assert {
        "blocks.openai.chat.empty-content-in-tool-phase-stripped",
        "blocks.openai.chat.malformed-and-empty-fragments-kept-raw",
    } <= run.with_outcome("passed")
    # ... and real traffic shows where they do not: the loop stops before the usage chunk.
    text = run.longreprs["blocks.openai.chat.real-tool-call-arguments-in-eleven-fragments"]
    assert "blocks/chunks-after-finish" in text
    assert "$[13]: missing item" in text
    assert "blocks.openai.chat.three-completions-in-one-chunk" in run.with_outcome("failed")
    assert run.with_outcome("error") == set()


@LITELLM
def test_agentflow_fake_passes_responses_and_fails_empty_partials(run_corpus):
    run = run_corpus("--impl=tests.fakes.agentflow_llm:adapter", "-k", "convert")
    assert "convert.openai.chat.real-tool-call-content-null" in run.with_outcome("passed")
    assert "convert.openai.chat.reasoning-content-and-cached-tokens" in run.with_outcome("passed")
    text = run.longreprs["convert.openai.chat.real-text-stream-with-usage"]
    assert "convert/no-empty-partials" in text
    assert run.with_outcome("error") == set()


@LITELLM
def test_the_fakes_refuse_the_sdk_objects_a_wrong_translation_would_hand_them(run_corpus):
    """An adapter that skips LiteLLM's conversion gets no pass out of the fakes, as out of the real code."""
    luthien = run_corpus("--impl=tests.fakes.skips_litellm:luthien", "-k", "blocks and openai")
    assert luthien.outcomes and luthien.with_outcome("passed") == set()
    assert "a LiteLLM proxy hands ModelResponseStream chunks, got ChatCompletionChunk" in "".join(
        luthien.longreprs.values()
    )
    agentflow = run_corpus("--impl=tests.fakes.skips_litellm:agentflow", "-k", "convert")
    assert agentflow.outcomes and agentflow.with_outcome("passed") == set()
    texts = "".join(agentflow.longreprs.values())
    assert "Unsupported response type for LiteLLMConverter" in texts  # a bare SDK stream
    assert "takes a ModelResponse, got <class 'openai.types.chat.chat_completion.ChatCompletion'>" in texts


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


@LITELLM
def test_litellm_draws_seeded_ids_inside_the_context_and_random_ones_elsewhere():
    """LiteLLM's uuids (Gemini calls' ``call_<uuid>``) come from a generator seeded anew for each call:
    the same sequence every time, distinct draws, LiteLLM's own UUID type; another thread is not served
    from it, and the backend's own ``uuid4`` is back afterwards."""
    import threading

    from wireconf.adapters.litellm_ids import seeded_ids
    from wireconf.adapters.litellm_objects import import_litellm

    import_litellm()
    from litellm._uuid import uuid as backend

    original = backend.uuid4
    runs, elsewhere = [], []
    for _ in range(2):
        with seeded_ids():
            first = backend.uuid4()
            thread = threading.Thread(target=lambda: elsewhere.append(str(backend.uuid4())))
            thread.start()
            thread.join()
            runs.append([str(first), *(str(backend.uuid4()) for _ in range(2))])
            assert type(first) is type(original()) and first.version == 4
    assert runs[0] == runs[1]
    assert len(set(runs[0])) == 3
    assert elsewhere[0] != elsewhere[1] and not set(elsewhere) & set(runs[0])
    assert backend.uuid4 is original
    assert str(backend.uuid4()) not in runs[0]


@LITELLM
def test_two_runs_through_litellm_give_identical_verdicts_and_diffs(run_corpus):
    """Gemini calls arrive without ids and LiteLLM draws them; the diffs that show them are the same on
    every run, so docs/findings.md rebuilds byte for byte."""
    runs = [
        run_corpus("--impl=tests.fakes.luthien_streaming:adapter", "-k", "blocks and gemini") for _ in "ab"
    ]
    assert runs[0].outcomes == runs[1].outcomes
    assert runs[0].longreprs == runs[1].longreprs
    assert any("call_" in text for text in runs[0].longreprs.values()), "a diff shows an id LiteLLM drew"


def _stream_input(corpus, case_id: str):
    from tests.conftest import REPO
    from wireconf.cassettes.store import CassetteStore
    from wireconf.kinds.base import HarnessContext, recorded_response, sdk_input
    from wireconf.sdk.replay import SdkReplay

    ctx = HarnessContext(CassetteStore(REPO / "cassettes"), SdkReplay())
    case = next(c for c in corpus.cases() if c.id == case_id)
    events, probe = sdk_input(ctx, case, case.model.response, stream=True)
    return events, probe, recorded_response(ctx, case, case.model.response, stream=True)


def _lines_litellm_reads(wrapper) -> list[str]:
    async def read() -> list[str]:
        return [line async for line in wrapper.completion_stream.streaming_response]

    return asyncio.run(read())


@LITELLM
@pytest.mark.parametrize(
    ("case_id", "model"),
    [
        ("blocks.gemini.generate_content.real-single-function-call", "gemini-2.0-flash"),
        ("blocks.anthropic.messages.real-max-tokens-text", "claude-sonnet-4-20250514"),
        (
            "blocks.gemini.generate_content.thought-parts-make-no-block",
            UNNAMED_MODEL["gemini.generate_content"],
        ),
    ],
)
def test_litellm_reads_the_recorded_lines_with_the_model_the_stream_names(corpus, case_id, model):
    """As after its own HTTP call: LiteLLM's parser reads the response's lines, the recorded bytes
    (not the SDK's re-serialised chunks, which would add e.g. google-genai's ``sdkHttpResponse``),
    through the probe the SDK would read; its model is the one the stream names (the request's, which
    the recording does not hold), or a default one for inline events that name none."""
    from wireconf.adapters.litellm_objects import stream_wrapper

    events, probe, recorded = _stream_input(corpus, case_id)
    wrapper = stream_wrapper(".".join(case_id.split(".")[1:3]), events)
    assert wrapper.model == model
    assert _lines_litellm_reads(wrapper) == recorded.body.decode("utf-8").splitlines()
    assert probe.read == probe.total
