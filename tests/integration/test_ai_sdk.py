"""The Vercel AI SDK (``--impl ai-sdk``) through the corpus over exec, on the JavaScript client
``@wireconf/exec``: it runs without errors against its committed baseline (every failure's reason names
the AI SDK function responsible), every api it declares is judged (e2e at the case's endpoint, Gemini's
included), and without Node.js or an install it is skipped with the reason.

The install (``wireconf ai-sdk build``, npm ci of the pinned lockfile from the npm registry) is what
``.ci/run`` does in its install step; the tests use it and never install. Without it they skip, unless
``WIRECONF_REQUIRE_AI_SDK=1`` (``.ci/run`` sets it after a successful install): then they fail."""

from __future__ import annotations

import json
import os
import shutil

import pytest
import yaml

from tests.conftest import REPO, assert_all_ruled, assert_reasons_true
from wireconf.adapters.ai_sdk import Unavailable, adapter
from wireconf.adapters.ai_sdk.build import PACKAGES, RUNTIME_ENV, installed
from wireconf.exec_protocol.messages import schema

BASELINE = REPO / "conformance" / "ai-sdk.yaml"
REQUIRE_ENV = "WIRECONF_REQUIRE_AI_SDK"
APIS = ("openai.chat", "openai.responses", "anthropic.messages", "gemini.generate_content")


@pytest.fixture
def install():
    root, why = installed()
    if root is None or shutil.which("node") is None:
        why = why or "node (Node.js) is not on PATH"
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"{REQUIRE_ENV} is set, but {why}")
        pytest.skip(why)
    return root


def test_without_node_every_case_is_skipped_with_the_reason(run_corpus, monkeypatch):
    monkeypatch.setenv("PATH", "")
    found = adapter()
    assert isinstance(found, Unavailable) and found.capabilities() == set()
    run = run_corpus("--impl=ai-sdk", "-k", "wire.openai.chat.model-id-verbatim")
    assert run.outcomes == {"wire.openai.chat.model-id-verbatim": "unsupported"}
    assert "ai-sdk is unavailable here: node (Node.js)" in run.longreprs["wire.openai.chat.model-id-verbatim"]


def test_an_incomplete_install_is_named_with_what_it_lacks(monkeypatch, tmp_path):
    monkeypatch.setenv(RUNTIME_ENV, str(tmp_path))
    root, why = installed()
    assert root is None and why is not None
    assert f"{RUNTIME_ENV}={tmp_path} lacks {PACKAGES[0]}, {PACKAGES[1]}" in why
    assert "wireconf ai-sdk build" in why and "\n" not in why


def test_the_corpus_runs_without_errors_against_the_committed_baseline(install, corpus, run_corpus, tmp_path):
    report = tmp_path / "ai-sdk.jsonl"
    run = run_corpus("--impl=ai-sdk", f"--baseline={BASELINE}", f"--report={report}")
    assert run.with_outcome("error") == set(), {c: run.longreprs[c][:400] for c in run.with_outcome("error")}
    assert_all_ruled(run, "ai-sdk")
    assert_reasons_true(run, BASELINE)
    assert run.ret == 0, (
        "conformance/ai-sdk.yaml is out of date with the corpus or the AI SDK: review the new entries"
    )
    records = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    assert {r["id"] for r in records} == {c.id for c in corpus.cases()}
    judged = {(r["kind"], r["api"]) for r in records if r["status"] not in ("unsupported", "skipped")}
    assert judged == {(kind, api) for kind in ("wire", "process", "stream", "e2e") for api in APIS}
    assert any(r["status"] == "passed" for r in records) and any(r["status"] == "failed" for r in records)


def test_every_baseline_reason_names_the_ai_sdk_function_responsible():
    failures = yaml.safe_load(BASELINE.read_text(encoding="utf-8"))["expected_failures"]
    assert failures
    packages = (
        "`ai`",
        "`@ai-sdk/openai`",
        "`@ai-sdk/anthropic`",
        "`@ai-sdk/google`",
        "`@ai-sdk/provider-utils`",
        "`@ai-sdk/provider`",
    )
    unnamed = {case: reason for case, reason in failures.items() if not any(p in reason for p in packages)}
    assert not unnamed, unnamed


def test_e2e_runs_at_the_cases_endpoint_on_the_base_url_its_ai_sdk_provider_takes(
    install, run_corpus, monkeypatch, tmp_path
):
    """An e2e call carries the case's endpoint, no SDK client and no `http` message: the runtime builds
    its providers on the endpoint's `api_base_url` (the AI SDK's providers take the versioned base URL:
    Anthropic's `/v1`, Gemini's `/v1beta`), and each request reaches the recorded interaction on the
    provider's own path (a request on another path matches none: the case fails, naming it). An
    incremental case's stream is held back by the emulator's gate: judged (the AI SDK passes it), not an
    error."""
    jsonschema = pytest.importorskip("jsonschema")
    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    cases = (
        "e2e.openai.chat.text-reply",
        "e2e.openai.chat.stream-text",  # incremental
        "e2e.anthropic.messages.stream-max-tokens-not-an-error",  # incremental
        "e2e.gemini.generate_content.options-in-generation-config",
    )
    run = run_corpus("--impl=ai-sdk", "-k", f"({' or '.join(cases)}) and not then")
    assert run.outcomes == dict.fromkeys(cases, "passed"), run.longreprs
    validator = jsonschema.Draft202012Validator(schema())
    sent = [json.loads(line)["message"] for line in transcript.read_text(encoding="utf-8").splitlines()]
    for message in sent:
        assert not [e.message for e in validator.iter_errors(message)], message
    assert not [m for m in sent if m["type"] == "http"]
    calls = [m for m in sent if m["type"] == "call" and m["method"] == "execute"]
    assert len(calls) == len(cases) and not [c for c in calls if "client" in c["args"]]
    endpoints = {c["api"]: c["endpoint"] for c in calls}
    assert endpoints["anthropic.messages"]["api_base_url"].endswith("/v1")
    assert endpoints["gemini.generate_content"]["api_base_url"].endswith("/v1beta")


def test_a_media_url_the_ai_sdk_downloads_gets_the_harness_fixture_at_the_endpoint(
    install, run_corpus, monkeypatch, tmp_path
):
    """The AI SDK's ``download()`` of a file URL the case names goes to the case's endpoint (its download
    path, ``call.downloadFetch()``) and gets the fixture PDF, which the AI SDK then inlines in the request
    it sends there (a verdict, not an error); nothing crosses the protocol as ``http``."""
    import base64

    from wireconf.cassettes.downloads import fixture

    transcript = tmp_path / "transcript.jsonl"
    monkeypatch.setenv("WIRECONF_EXEC_TRANSCRIPT", str(transcript))
    case = "wire.openai.chat.file-part"
    report = tmp_path / "report.jsonl"
    run = run_corpus("--impl=ai-sdk", "--kind=wire", "-k", case, f"--report={report}")
    assert run.outcomes == {case: "failed"}, run.longreprs
    assert "file_data" in run.longreprs[case] and "7.1.2/file-part" in run.longreprs[case]
    sent = [json.loads(line)["message"] for line in transcript.read_text(encoding="utf-8").splitlines()]
    assert not [m for m in sent if m["type"] in ("http", "response")]
    [call] = [m for m in sent if m["type"] == "call"]
    assert call["endpoint"]["download"].startswith("http://127.0.0.1:")
    # the PDF the request carries is the fixture's bytes, as the AI SDK inlined them (the report shows
    # the start of a long value)
    inlined = f"data:application/pdf;base64,{base64.b64encode(fixture('application/pdf')).decode()[:150]}"
    assert inlined in report.read_text(encoding="utf-8")
