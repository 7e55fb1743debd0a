"""One bad corpus file costs its own cases, never the run (issue 27, items 6 and 7): a cassette body
nested deeper than any parser can follow, a case file nested as deep, a string aliased into gigabytes."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import REPO, small_corpus
from tests.test_broken_cassettes import PLAIN_CASSETTE, RULES

CASES = """\
x-agent: &agent {model: {id: gpt-4o-mini, provider: openai, apiType: chat}}
cases:
  - {id: process.openai.chat.on-deep, kind: process, api: openai.chat, rules: [8.6/content-deltas],
     agent: *agent, response: {cassette: openai/deep}, expect: This is a test.}
  - {id: process.openai.chat.fine, kind: process, api: openai.chat, rules: [8.6/content-deltas],
     agent: *agent, response: {cassette: openai/fine}, expect: This is a test.}
"""


def _cassette(cassettes: Path, name: str, body: str | None = None) -> None:
    data = yaml.safe_load((REPO / "cassettes" / f"{PLAIN_CASSETTE}.yaml").read_text())
    if body is not None:
        data["interactions"][0]["response"]["body"] = {"string": body}
    path = cassettes / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False, width=1_000_000))


def test_a_cassette_body_nested_100000_deep_errors_its_own_case_only(pytester, run_corpus):
    cassettes = pytester.path / "cassettes"
    _cassette(cassettes, "openai/deep", "[" * 100_000 + "]" * 100_000)
    _cassette(cassettes, "openai/fine")
    corpus = small_corpus(pytester.path / "corpus", RULES, "cases.yaml", CASES)
    run = run_corpus("--impl=reference", f"--cassettes={cassettes}", target=corpus)
    assert run.outcomes["process.openai.chat.fine"] == "passed", run.longreprs
    assert run.outcomes["process.openai.chat.on-deep"] == "error"
    text = run.longreprs["process.openai.chat.on-deep"]
    assert "openai/deep" in text and "nested" in text, text
    assert "RecursionError" not in text and len(text) < 5000, text[:3000]


def test_a_case_file_nested_600_deep_is_refused_alone(pytester, run_corpus, monkeypatch):
    monkeypatch.setenv("WIRECONF_CACHE_DIR", str(pytester.path / "cache"))
    monkeypatch.setattr("harness.corpus.parsed_files.MIN_FILES", 1)  # the parse cache, which pickles
    fine = CASES.replace("openai/deep", "openai/fine")
    corpus = small_corpus(pytester.path / "corpus", RULES, "cases.yaml", fine)
    _cassette(pytester.path / "cassettes", "openai/fine")
    deep = "[" * 600 + "]" * 600
    (corpus / "deep.yaml").write_text(
        "cases:\n  - {id: wire.openai.chat.deep, kind: wire, api: openai.chat, rules: [8.6/content-deltas],\n"
        f"     agent: {{model: {{id: gpt-4o-mini, provider: openai, apiType: chat}}}}, expect: {deep}}}\n"
    )
    run = run_corpus("--impl=reference", f"--cassettes={pytester.path / 'cassettes'}", target=corpus)
    assert run.outcomes["process.openai.chat.fine"] == "passed", (run.longreprs, run.problems)
    problem = next(text for name, text in run.problems.items() if "deep.yaml" in name or "deep.yaml" in text)
    assert "deep.yaml" in problem and "nested" in problem, problem
