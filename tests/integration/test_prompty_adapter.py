"""The prompty adapter (PyPI ``prompty``) through the whole corpus: every case passes, fails with a
diff, or is skipped with a reason, never an error; its committed baseline matches a fresh run."""

from __future__ import annotations

import shutil
import sys

import pytest
import yaml

from tests.conftest import REPO, assert_all_ruled, assert_reasons_true
from tests.runtime_envs import in_process
from wireconf.adapter_contract import RequestNotSendable
from wireconf.adapters.prompty_adapter.capture import as_request_body
from wireconf.adapters.prompty_adapter.inputs import agent_data, message_data
from wireconf.commands.findings import RUNTIMES_FILE, listed_runtimes

BASELINE = REPO / "conformance" / "prompty.yaml"


def test_canonical_inputs_map_to_prompty_words_only():
    message = {
        "role": "user",
        "content": [
            {"kind": "text", "value": "Look"},
            {"kind": "image", "value": "https://x/y.png", "detail": None, "mediaType": "image/png"},
        ],
        "metadata": {"name": "ann"},
    }
    assert message_data(message) == {
        "role": "user",
        "parts": [
            {"kind": "text", "value": "Look"},
            {"kind": "image", "source": "https://x/y.png", "detail": None, "mediaType": "image/png"},
        ],
        "metadata": {"name": "ann"},
    }
    agent = {"model": {"id": "m", "options": {"maxOutputTokens": 5}}, "outputs": []}
    assert agent_data(agent) == agent  # nothing added, dropped or defaulted
    routed = agent_data(agent, connection="c")
    assert routed["model"]["connection"] == {"kind": "reference", "name": "c"}
    assert routed["model"]["options"] == {"maxOutputTokens": 5} and "connection" not in agent["model"]


def test_a_request_that_is_not_json_is_an_error_naming_where():
    class Message:
        pass

    assert as_request_body({"model": "m", "input": ["a", ("b", 1)]}) == {
        "model": "m",
        "input": ["a", ["b", 1]],
    }
    with pytest.raises(RequestNotSendable, match=r"\$\.input\[1\] is a .*Message"):
        as_request_body({"model": "m", "input": ["ok", Message()]})


def test_without_prompty_installed_every_case_is_skipped_with_the_reason(corpus, run_corpus, monkeypatch):
    """Like every adapter of a runtime no one here wrote: a missing package skips the cases (counted as
    unsupported, never as passes) with the reason and how to install it."""
    monkeypatch.setitem(sys.modules, "prompty", None)  # as if the package were not installed
    run = run_corpus("--impl=prompty", "--api=openai.chat", "--kind=wire")
    chat_wire = {c.id for c in corpus.cases() if c.api == "openai.chat" and c.kind == "wire"}
    assert run.with_outcome("unsupported") == chat_wire
    reason = run.longreprs["wire.openai.chat.single-text-part-is-string"]
    assert "prompty is unavailable here: prompty is not importable" in reason
    assert "pip install -e '.[prompty]'" in reason


needs_prompty = in_process("prompty", "prompty")


@needs_prompty
def test_prompty_declares_what_it_really_does():
    """Skips must be true: prompty runs e2e (executor then processor through any SDK client) and hands
    image streams to its processor; it has no Gemini provider and no seed 002-004 components."""
    from wireconf.adapters.prompty_adapter import PromptyAdapter

    caps = PromptyAdapter().capabilities()
    assert {
        "e2e:openai.chat",
        "e2e:anthropic.messages",
        "stream:openai.images",
        "wire:openai.embeddings",
    } <= caps
    assert not [
        c
        for c in caps
        if c.endswith("gemini.generate_content") or c.split(":")[0] in ("blocks", "extract", "convert")
    ]


@needs_prompty
def test_prompty_runs_the_whole_corpus_without_errors(corpus, run_corpus):
    run = run_corpus("--impl=prompty")
    assert set(run.outcomes) == {c.id for c in corpus.cases()}
    assert_all_ruled(run, "prompty")
    assert run.with_outcome("error") == set(), {c: run.longreprs[c][:500] for c in run.with_outcome("error")}
    assert run.with_outcome("skipped") == set()
    for case_id in run.with_outcome("unsupported"):
        assert "not supported by prompty" in run.longreprs[case_id]
    failed = run.with_outcome("failed")
    assert failed, "prompty passes everything: the findings page would be empty"
    cases = {c.id: c for c in corpus.cases()}
    for case_id in failed:
        text = run.longreprs[case_id]
        assert f"case {case_id} (" in text and "against prompty" in text
        assert any(f"rule {rule}" in text for rule in cases[case_id].model.rules)
        assert (
            "differs from the expectation" in text
            or "expected" in text
            or "the runtime sent no request through the SDK client" in text  # e2e: it raised first
        )


@needs_prompty
def test_the_committed_baseline_matches_a_fresh_run(run_corpus):
    run = run_corpus("--impl=prompty", f"--baseline={BASELINE}")
    assert run.ret == 0, (
        "conformance/prompty.yaml is out of date with the corpus: re-run `wireconf findings` and review "
        "the reasons of new entries"
    )
    assert_reasons_true(run, BASELINE)


def test_findings_page_names_every_baseline_entry():
    import yaml

    entries = yaml.safe_load(BASELINE.read_text(encoding="utf-8"))["expected_failures"]
    page = (REPO / "docs" / "findings.md").read_text(encoding="utf-8")
    assert entries
    for case_id in entries:
        assert f"`{case_id}`" in page, f"{case_id} is in the baseline but not on the findings page"


@pytest.mark.third_party  # it runs every listed runtime: luthien-proxy, agentflow and prompty-ts too
def test_findings_command_rebuilds_the_page(agentflow_python, llamaindex_python, tmp_path, monkeypatch):
    """The command is what the integrator re-runs: from the committed baselines it must reproduce the
    committed page exactly, and leave what every baseline says fails, and why, as it is (it also records
    the cases that pass and the corpus's version: bookkeeping for the gate, see docs/ci.md). agentflow and
    LlamaIndex run in their environments, as every runtime with packages (the test is skipped where
    either cannot be made, failed where .ci/run made them)."""
    from tests.prompty_ts_build import built_runtime
    from wireconf.adapters.prompty_ts.locate import RUNTIME_ENV
    from wireconf.cli import main

    monkeypatch.setenv(RUNTIME_ENV, str(built_runtime()))  # the page compares it with prompty

    out, baselines = tmp_path / "findings.md", tmp_path / "conformance"
    shutil.copytree(REPO / "conformance", baselines)
    monkeypatch.chdir(REPO)
    assert main(["findings", "--baselines", str(baselines), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == (REPO / "docs" / "findings.md").read_text(encoding="utf-8")
    page = (REPO / "docs" / "findings.html").read_text(encoding="utf-8")
    assert out.with_suffix(".html").read_text(encoding="utf-8") == page  # the compliance page beside it
    for runtime in listed_runtimes(REPO / "conformance" / RUNTIMES_FILE):
        committed = REPO / "conformance" / f"{runtime.name}.yaml"
        before, after = (
            yaml.safe_load(p.read_text(encoding="utf-8")) for p in (committed, baselines / committed.name)
        )
        assert after["expected_failures"] == before["expected_failures"], committed.name
        assert (after["impl"], after["version"]) == (before["impl"], before["version"]), committed.name
