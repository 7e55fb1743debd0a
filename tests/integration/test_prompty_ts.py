"""Prompty's TypeScript runtime (``--impl prompty-ts``) through the corpus over exec protocol 2: it runs
without errors against its committed baseline, its inputs are the recorded bytes (parsed by its own
SDKs), and without Node.js or a build it is skipped with the reason."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import REPO, assert_all_ruled, assert_reasons_true
from tests.prompty_ts_build import built_runtime
from wireconf.adapter_contract import ALL_CONCEPTS
from wireconf.adapters.prompty_ts import Unavailable, adapter
from wireconf.adapters.prompty_ts.build import BuildError, build, source_digest
from wireconf.adapters.prompty_ts.locate import RUNTIME_ENV
from wireconf.exec_protocol.messages import schema

BASELINE = REPO / "conformance" / "prompty-ts.yaml"
APIS = ("openai.chat", "openai.embeddings", "openai.images", "openai.responses", "anthropic.messages")
STREAMING = ("openai.chat", "openai.images", "openai.responses", "anthropic.messages")


@pytest.fixture
def runtime(monkeypatch):
    built = built_runtime()
    monkeypatch.setenv(RUNTIME_ENV, str(built))
    return built


def test_without_node_every_case_is_skipped_with_the_reason(run_corpus, monkeypatch):
    monkeypatch.setenv("PATH", "")
    found = adapter()
    assert isinstance(found, Unavailable) and found.capabilities() == set()
    assert found.unavailable.startswith("node (Node.js) is not on PATH")
    run = run_corpus("--impl=prompty-ts", "-k", "wire.openai.chat.model-id-verbatim")
    assert run.outcomes == {"wire.openai.chat.model-id-verbatim": "unsupported"}
    assert (
        "prompty-ts is unavailable here: node (Node.js)"
        in run.longreprs["wire.openai.chat.model-id-verbatim"]
    )


@pytest.mark.skipif(shutil.which("node") is None, reason="without node the build is never looked at")
def test_a_folder_that_is_not_built_is_named_with_what_it_lacks(monkeypatch, tmp_path):
    monkeypatch.setenv(RUNTIME_ENV, str(tmp_path))
    found = adapter()
    assert isinstance(found, Unavailable)
    assert f"{RUNTIME_ENV}={tmp_path} is not a built runtime/typescript folder" in found.unavailable
    assert "packages/core/dist/index.js" in found.unavailable and "\n" not in found.unavailable


def test_a_source_without_the_runtime_is_refused_before_npm_runs(tmp_path):
    (tmp_path / "README.md").write_text("not a prompty checkout")
    with pytest.raises(BuildError, match="no runtime/typescript folder"):
        build(tmp_path, cache=tmp_path / "cache")


def test_a_build_of_the_same_source_is_reused_without_npm(runtime, monkeypatch, tmp_path):
    import wireconf.adapters.prompty_ts.build as building
    from tests.prompty_ts_build import shared_tarball

    tarball = shared_tarball()
    assert tarball is not None and runtime.parts[-4] == source_digest(
        tarball
    )  # <cache>/prompty-ts/<digest>/…
    monkeypatch.setattr(building.shutil, "which", lambda name: None)  # npm is never looked for
    assert build(tarball) == runtime


def test_the_corpus_runs_without_errors_against_the_committed_baseline(runtime, corpus, run_corpus, tmp_path):
    report = tmp_path / "prompty-ts.jsonl"
    run = run_corpus("--impl=prompty-ts", f"--baseline={BASELINE}", f"--report={report}")
    assert run.with_outcome("error") == set(), {c: run.longreprs[c][:400] for c in run.with_outcome("error")}
    assert_all_ruled(run, "prompty-ts")
    assert_reasons_true(run, BASELINE)
    assert run.ret == 0, (
        "conformance/prompty-ts.yaml is out of date with the corpus: re-run `wireconf findings` and review "
        "the reasons of new entries"
    )
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert {r["id"] for r in records} == {c.id for c in corpus.cases()}
    judged = {(r["kind"], r["api"]) for r in records if r["status"] not in ("unsupported", "skipped")}
    declared = {(k, a) for k in ("wire", "process") for a in APIS} | {("stream", a) for a in STREAMING}
    declared |= {("e2e", a) for a in APIS if a != "openai.embeddings"}  # see server.mjs's NO_E2E
    assert judged == declared
    assert {r["impl"] for r in records} == {"prompty-ts"}
    assert any(r["status"] == "failed" for r in records) and any(r["status"] == "passed" for r in records)


def test_recorded_bytes_are_read_at_the_endpoint_and_the_messages_fit_the_schema(
    runtime, corpus, run_corpus, monkeypatch, tmp_path
):
    """Protocol 4's ``endpoints``: a process or stream call carries the case's endpoint and none of the
    recorded bytes (the runtime's SDK reads them there); every message fits the schema."""
    jsonschema = pytest.importorskip("jsonschema")
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    cases = ("process.openai.chat.real-plain-text", "stream.anthropic.messages.real-single-text-delta")
    run = run_corpus("--impl=prompty-ts", "-k", " or ".join(cases))
    assert run.outcomes == dict.fromkeys(cases, "passed"), run.longreprs
    validator = jsonschema.Draft202012Validator(schema())
    messages = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    for entry in messages:
        assert not [e.message for e in validator.iter_errors(entry["message"])], entry
    sent = [m["message"] for m in messages]
    hello = next(m for m in sent if m["type"] == "hello")
    assert (hello["protocol"], hello["endpoints"]) == (4, True)
    # the spec's own runtime declares every optional concept, as the Python prompty adapter does
    assert {c for c in hello["capabilities"] if c.startswith("concept:")} == ALL_CONCEPTS
    calls = [m for m in sent if m["type"] == "call"]
    assert len(calls) == 2 and all(call["endpoint"]["api"] == call["api"] for call in calls)
    assert all(
        call["sdk"] == [] and call["stream"] is None and set(call["args"]) == {"agent"} for call in calls
    )
    assert not {m["type"] for m in sent} & {"event", "events", "http", "response"}


def test_e2e_runs_at_the_cases_endpoint(runtime, run_corpus, monkeypatch, tmp_path):
    """e2e over ``endpoints``: an ``execute`` call carries the case's endpoint and no SDK client; the
    runtime's own SDK sends its request there, the case's cassette answers it (a request on another path
    or route matches no recorded interaction: the case fails, naming it), and nothing of it crosses the
    protocol (no `http`, no `response`); a stream result is streamed back item by item."""
    jsonschema = pytest.importorskip("jsonschema")
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    cases = ("e2e.openai.chat.text-reply", "e2e.anthropic.messages.stream-text")
    run = run_corpus("--impl=prompty-ts", "-k", " or ".join(cases))
    assert run.outcomes == dict.fromkeys(cases, "passed"), run.longreprs
    validator = jsonschema.Draft202012Validator(schema())
    sent = [json.loads(line)["message"] for line in transcript.read_text(encoding="utf-8").splitlines()]
    for message in sent:
        assert not [e.message for e in validator.iter_errors(message)], message
    calls = {m["api"]: m for m in sent if m["type"] == "call" and m["method"] == "execute"}
    assert set(calls) == {"openai.chat", "anthropic.messages"}
    assert all(c["endpoint"]["api"] == api and "client" not in c["args"] for api, c in calls.items())
    assert not {m["type"] for m in sent} & {"http", "response"}
    streamed = [m for m in sent if m["type"] == "result" and m.get("streamed")]
    assert [m["id"] for m in streamed] == [calls["anthropic.messages"]["id"]]
