"""An outcome for every kind of failure (issue 32, item 4): an input the runtime cannot express is
unsupported, an exception of the adapter's own code is an error naming the adapter, a JavaScript
exception keeps its name, and the printed figures of every profile equal what pytest reports under it."""

from __future__ import annotations

import json
import re
import shlex
import sys
import textwrap

import pytest
import yaml

from tests.conftest import REPO, collect_run, small_corpus
from tests.fakes.inexpressible import REASON
from wireconf.reports.jsonl import read_records
from wireconf.reports.matrix import build_matrix

PY_SERVE = f"{shlex.quote(sys.executable)} -m wireconf.exec_protocol.serve"
IMAGE = "wire.openai.chat.single-image-part-is-an-array"
TEXT = "wire.openai.chat.single-text-part-is-string"
SYSTEM = "wire.openai.chat.system-then-user-strings"  # the adapter_bug fake's own code raises
DEVELOPER = "wire.openai.chat.role-copied-verbatim"  # the runtime under the adapter_bug fake raises


# --- Inexpressible: unsupported, counted and shown -----------------------------------------------------


@pytest.mark.parametrize("over", ["in-process", "exec"])
def test_an_input_the_adapter_cannot_express_makes_the_case_unsupported(
    run_corpus, monkeypatch, tmp_path, over
):
    """``Inexpressible`` from the adapter (in-process, or served over exec as ``inexpressible: true``):
    the runtime was never called, so no verdict and no error; the case is unsupported, with the reason,
    in pytest's outcome, the summary's count and the report."""
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    impl = "tests.fakes.inexpressible:adapter"
    impl = impl if over == "in-process" else f"exec:{PY_SERVE} {impl}"
    report = tmp_path / "run.jsonl"
    run = run_corpus(
        f"--impl={impl}",
        "--kind=wire",
        "--api=openai.chat",
        "-k",
        "image or single-text",
        f"--report={report}",
    )
    assert run.outcomes[IMAGE] == "unsupported", run.longreprs.get(IMAGE)
    assert run.outcomes[TEXT] == "passed"
    assert not set(run.outcomes.values()) & {"failed", "error"}, run.longreprs
    records = {r.id: r for r in read_records([report])}
    assert records[IMAGE].status == "unsupported"
    assert REASON in (records[IMAGE].reason or ""), records[IMAGE]
    (runtime,) = build_matrix(list(records.values())).runtimes
    assert runtime.counts["unsupported"] == len(run.with_outcome("unsupported"))


def test_a_baseline_update_drops_the_expected_failure_of_a_case_now_inexpressible(run_corpus, tmp_path):
    """A case listed as failing that the adapter now says it cannot express is no failure to expect: the
    update removes its entry (a stale claim on the findings page otherwise), and keeps the others."""
    baseline = tmp_path / "baseline.yaml"
    baseline.write_text(
        "impl: inexpressible\nexpected_failures:\n"
        f"  {IMAGE}: 'an old reason'\n  wire.openai.chat.not-run-here: 'kept'\npassed: {{}}\n",
        encoding="utf-8",
    )
    run_corpus(
        "--impl=tests.fakes.inexpressible:adapter",
        "--kind=wire",
        "--api=openai.chat",
        "-k",
        "image",
        f"--baseline={baseline}",
        "--update-baseline",
    )
    written = yaml.safe_load(baseline.read_text(encoding="utf-8"))["expected_failures"]
    assert IMAGE not in written and written["wire.openai.chat.not-run-here"] == "kept", written


# --- an adapter's own exception is an error -------------------------------------------------------------


@pytest.mark.parametrize("over", ["in-process", "exec"])
def test_an_exception_of_the_adapters_own_code_is_an_error_naming_it(run_corpus, monkeypatch, over):
    """The adapter's bug (a KeyError in its own mapping) is an error that names the adapter and where; the
    runtime's exception under the same adapter is judged as the runtime's outcome (a failure)."""
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    impl = "tests.fakes.adapter_bug:adapter"
    impl = impl if over == "in-process" else f"exec:{PY_SERVE} {impl}"
    run = run_corpus(f"--impl={impl}", "-k", f"{SYSTEM} or {DEVELOPER}")
    assert run.outcomes == {SYSTEM: "error", DEVELOPER: "failed"}, run.longreprs
    error = run.longreprs[SYSTEM]
    assert "the adapter adapter-bug raised builtins.KeyError: " in error and "no such key" in error
    assert "in its own code, at tests.fakes.adapter_bug:" in error
    assert "a bug of the adapter" in error, error
    assert "defect of the corpus" not in error
    assert "this runtime has no developer role" in run.longreprs[DEVELOPER]


# --- what an exec runtime's error message says ----------------------------------------------------------

EXEC_ERRORS = REPO / "tests" / "fakes" / "exec_errors.py"
EMPTY = "process.openai.embeddings.empty-data-raises"  # expects an empty-response error
EMPTY_TEXT = "process.openai.embeddings.single-vector-written-out"  # expects a result


def _errors_run(run_corpus, error: dict, hello: dict | None = None):
    command = shlex.join([sys.executable, str(EXEC_ERRORS), json.dumps(hello or {}), json.dumps(error)])
    return run_corpus(f"--impl=exec:{command}", "-k", f"{EMPTY} or {EMPTY_TEXT}", "--api=openai.embeddings")


def test_an_exec_error_that_says_inexpressible_is_unsupported(run_corpus):
    error = {
        "type": "Inexpressible",
        "mro": ["Inexpressible", "Error"],
        "message": "no embeddings of that",
        "inexpressible": True,
    }
    run = _errors_run(run_corpus, error)
    assert run.outcomes == {EMPTY: "unsupported", EMPTY_TEXT: "unsupported"}, run.longreprs
    assert "no embeddings of that" in run.longreprs[EMPTY]


def test_an_exec_error_of_origin_adapter_is_an_error_naming_the_adapter_whatever_was_expected(run_corpus):
    """Even where the case expects an error, the adapter's own bug is no claim about the runtime."""
    error = {
        "type": "TypeError",
        "mro": ["TypeError", "Error"],
        "message": "x is undefined",
        "origin": "adapter",
        "at": "server.mjs:12",
    }
    run = _errors_run(run_corpus, error)
    assert run.outcomes == {EMPTY: "error", EMPTY_TEXT: "error"}, run.longreprs
    assert (
        "the adapter errors raised TypeError: x is undefined in its own code, at server.mjs:12"
        in (run.longreprs[EMPTY_TEXT])
    )


@pytest.mark.parametrize("categories", [True, False])
def test_a_javascript_exception_keeps_its_own_name(run_corpus, categories):
    """A JavaScript SyntaxError (JSON.parse) is shown as the runtime named it, never as Python's
    ``builtins.SyntaxError``, with or without the runtime's error categories."""
    error = {
        "type": "SyntaxError",
        "mro": ["SyntaxError", "Error"],
        "message": "Unexpected token n in JSON",
        **({"category": None} if categories else {}),
    }
    run = _errors_run(run_corpus, error, {"categories": True} if categories else {})
    text = run.longreprs[EMPTY_TEXT]
    assert run.outcomes[EMPTY_TEXT] == "failed", text
    assert "but the adapter raised SyntaxError: Unexpected token n in JSON" in text
    assert "builtins.SyntaxError" not in text and "remote." not in text


# --- the gate and the printed figures agree in every profile --------------------------------------------

RULES = """\
rules:
  - id: 1/spec-n
    level: MUST
    basis: text
    governs: [{subject: request, path: '$.n'}]
    source: {seed: s.txt, section: '1'}
    statement: no n.
  - id: 1/project-seed
    level: MUST
    basis: decision
    gap: silent
    decision: the project sends no seed.
    governs: [{subject: request, path: '$.seed'}]
    source: {seed: s.txt, section: '1'}
    statement: no seed.
  - id: 1/project-stream
    level: MUST
    basis: decision
    gap: silent
    decision: the project sends no stream key.
    governs: [{subject: request, path: '$.stream'}]
    source: {seed: s.txt, section: '1'}
    statement: no stream key.
"""

CASES = """\
x-agent: &agent {model: {id: m, provider: openai, apiType: chat}}
cases:
"""
EXTRAS = {
    "passes": {},
    "spec": {"n": 2},
    "project": {"seed": 1},
    # a project failure with one unruled difference (a message's name: no rule here governs it)
    "project-and-unruled": {"seed": 1, "message": {"name": "someone"}},
    "representation": {"stream": False},  # the provider's equivalence covers it under interop
    "crash": None,  # the adapter's own code raises: an error
}
FAILING = {"spec": 2, "interop": 3, "full": 4}
"""Per profile, the cases that fail under it (see EXTRAS): what pytest must report and the figure say."""

ADAPTER = """\
import json

from wireconf.adapter_contract import capability


class Adapter:
    name, version = "figures", "1"

    def capabilities(self):
        return {capability("wire", "openai.chat")}

    def build_request(self, api, agent, messages):
        text = messages[0]["content"][0]["value"]
        extra = json.loads(text)["extra"]
        message = {"role": "user", "content": text, **extra.pop("message", {})}
        return {"model": "m", "messages": [message], **extra}


adapter = Adapter()
"""


def _figures_corpus(pytester):
    cases = CASES
    for name, extra in EXTRAS.items():
        text = json.dumps({"extra": extra}) if extra is not None else "not json"
        cases += textwrap.indent(
            textwrap.dedent(
                f"""\
                - id: wire.openai.chat.{name}
                  rules: [1/spec-n, 1/project-seed, 1/project-stream]
                  kind: wire
                  api: openai.chat
                  agent: *agent
                  messages: [{{role: user, content: [{{kind: text, value: {json.dumps(text)}}}]}}]
                  expect: {{model: m, messages: [{{role: user, content: {json.dumps(text)}}}]}}
                """
            ),
            "  ",
        )
    pytester.makepyfile(figures_adapter=ADAPTER)
    return small_corpus(pytester.path / "corpus", RULES, "cases.yaml", cases)


def _printed(stdout: str) -> dict[str, int]:
    """Each profile's count of failing cases, as the summary prints it."""
    found = {}
    for profile in ("spec", "interop"):
        match = re.search(rf"{profile} profile: \d+ of \d+ judged cases .*?; (\d+) fail under it", stdout)
        assert match, stdout[-3000:]
        found[profile] = int(match.group(1))
    match = re.search(r"full profile: \d+ of \d+ judged cases pass; (\d+) fail", stdout)
    assert match, stdout[-3000:]
    found["full"] = int(match.group(1))
    return found


def test_the_gate_and_the_printed_figures_agree_in_every_profile(pytester, tmp_path):
    """Under each profile, pytest fails exactly as many cases as that profile's printed figure says, and
    the figures printed by a run under any profile (and by its report) are the same: a project failure
    with one unruled difference fails every profile and is never counted as conforming."""
    corpus = _figures_corpus(pytester)
    pytester.syspathinsert(pytester.path)
    printed = {}
    for profile in FAILING:
        report = tmp_path / f"{profile}.jsonl"
        result = pytester.runpytest_inprocess(
            str(corpus),
            "--impl=figures_adapter:adapter",
            f"--profile={profile}",
            f"--report={report}",
            "-p",
            "no:cacheprovider",
        )
        outcomes = result.parseoutcomes()
        assert outcomes.get("errors") == 1, result.stdout.str()[-3000:]  # the adapter's own crash
        assert outcomes.get("failed", 0) == FAILING[profile], (profile, result.stdout.str()[-3000:])
        printed[profile] = _printed(result.stdout.str())
        (runtime,) = build_matrix(read_records([report])).runtimes
        judged = runtime.judged - runtime.counts["error"]
        assert (judged - runtime.spec_conform, judged - runtime.interop_pass) == (
            FAILING["spec"],
            FAILING["interop"],
        )
    assert printed == {profile: FAILING for profile in FAILING}, printed


def test_collect_run_counts_the_figures_corpus(pytester):
    """The corpus of the test above is what it says: one case per kind of failure."""
    corpus = _figures_corpus(pytester)
    pytester.syspathinsert(pytester.path)
    run = collect_run(
        pytester.inline_run(str(corpus), "--impl=figures_adapter:adapter", "-p", "no:cacheprovider")
    )
    assert run.outcomes == {
        "wire.openai.chat.passes": "passed",
        "wire.openai.chat.spec": "failed",
        "wire.openai.chat.project": "failed",
        "wire.openai.chat.project-and-unruled": "failed",
        "wire.openai.chat.representation": "failed",
        "wire.openai.chat.crash": "error",
    }, run.longreprs
    bases = sorted(d["basis"] for d in run.differences["wire.openai.chat.project-and-unruled"])
    assert bases == ["declared", "unruled"]
