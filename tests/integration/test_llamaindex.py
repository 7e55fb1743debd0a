"""LlamaIndex's real LLM classes through a handful of cases, from its environment (conformance/
runtimes.yaml's packages, made by ``wireconf.envs``: LlamaIndex pins other SDK versions than the
project's, so it never runs in ``.venv``), in that environment's pytest and served over ``exec:`` to this
one. Skipped, with the reason, where the environment cannot be made (offline, with none cached);
``WIRECONF_REQUIRE_LLAMAINDEX`` (``.ci/run`` sets it) makes that a failure.

The verdicts asserted are what LlamaIndex's source does: ``OpenAI`` sends its ``temperature`` default
(0.1) and ``stream: false`` when the agent asks for neither; ``Anthropic`` sends its own ``max_tokens``
default (512) and ``system: ""`` without a system message; ``GoogleGenAI`` names a Gemini call that
came without an id after its function (an id the corpus does not predict: ``{$id}``, so that passes).
And the whole corpus against ``conformance/llamaindex.yaml``, as ``wireconf findings`` runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CASES, REPO

pytestmark = pytest.mark.third_party

SERVE = "-m wireconf.exec_protocol.serve llamaindex"

PASSING = {
    "process.openai.chat.structured-nested-object-parsed",  # as_structured_llm parses the JSON text
    "stream.openai.chat.text-after-tool-call-still-streams-first",
    "process.openai.responses.mapping-function-calls",
    "stream.anthropic.messages.two-tools-accumulate-per-index",
    "process.gemini.generate_content.text-parts-concatenated",
    # a Gemini call that came without an id is named after its function: the corpus asks for an id
    # nobody can predict ({$id}), unique in the result, and the one call here has one
    "process.gemini.generate_content.mapping-function-call",
}
FAILING = {
    "wire.openai.chat.minimal-request": {"$.temperature": "got 0.1", "$.stream": "got false"},
    "wire.anthropic.messages.minimal-request": {
        "$.max_tokens": "got 512",
        "$.system": 'got ""',
        "$.temperature": "got 0.1",
    },
}
E2E = "e2e.gemini.generate_content.options-in-generation-config"
"""An e2e case: judged in process and over ``exec:`` alike (LlamaIndex's ``execute`` takes the case's
endpoint and no client: the Python server has nothing to bridge)."""


def _report(python: str, impl: str, report: Path) -> dict[str, dict]:
    selected = " or ".join([*PASSING, *FAILING, E2E])
    command = [python, "-m", "pytest", str(CASES), "-q", "-k", selected, f"--impl={impl}"]
    subprocess.run([*command, f"--report={report}", "-p", "no:cacheprovider"], cwd=REPO, check=False)
    return {r["id"]: r for r in map(json.loads, report.read_text().splitlines()) if r.get("kind")}


def _assert_verdicts(rows: dict[str, dict]) -> None:
    assert {i for i, r in rows.items() if r["status"] == "passed"} == PASSING
    assert {i for i, r in rows.items() if r["status"] == "failed"} == set(FAILING)
    for case, expected in FAILING.items():
        texts = [d["text"] for d in rows[case]["differences"]]
        for path, got in expected.items():
            assert any(t.startswith(f"{path}:") and got in t for t in texts), (case, path, texts)


def test_llamaindex_in_its_own_environment(llamaindex_python, tmp_path):
    rows = _report(llamaindex_python, "llamaindex", tmp_path / "in-process.jsonl")
    assert rows[E2E]["status"] == "passed"
    del rows[E2E]
    _assert_verdicts(rows)


def test_llamaindex_served_over_exec_gives_the_same_verdicts(llamaindex_python, tmp_path):
    """The harness in this environment (the project's SDKs), LlamaIndex in its own."""
    rows = _report(sys.executable, f"exec:{llamaindex_python} {SERVE}", tmp_path / "served.jsonl")
    assert rows[E2E]["status"] == "passed"
    del rows[E2E]
    _assert_verdicts(rows)


def test_llamaindex_runs_the_corpus_against_its_baseline(llamaindex_python, tmp_path):
    """The whole corpus, in LlamaIndex's own environment, as ``conformance/runtimes.yaml`` runs it: no
    error, every difference declared by a rule, the baseline gate holds."""
    report = tmp_path / "llamaindex.jsonl"
    baseline = REPO / "conformance" / "llamaindex.yaml"
    command = [llamaindex_python, "-m", "pytest", str(CASES), "-q", "--impl=llamaindex"]
    done = subprocess.run(
        [*command, f"--report={report}", f"--baseline={baseline}", "-p", "no:cacheprovider"],
        cwd=REPO,
        check=False,
        capture_output=True,
        text=True,
    )
    assert report.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    records = [r for r in rows if r.get("kind")]
    assert not [r["id"] for r in records if r["status"] == "error"]
    unruled = [r["id"] for r in records for d in r.get("differences") or [] if d.get("basis") == "unruled"]
    assert unruled == []
    assert done.returncode == 0, done.stdout[-3000:]
