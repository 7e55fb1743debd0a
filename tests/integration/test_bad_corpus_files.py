"""One bad corpus file costs its own cases, never the run (issue 27, items 6 and 7): a cassette body
nested deeper than any parser can follow, a case file nested as deep, a string aliased into gigabytes."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, small_corpus
from tests.integration.test_broken_cassettes import PLAIN_CASSETTE, RULES

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
    monkeypatch.setattr("wireconf.corpus.parsed_files.MIN_FILES", 1)  # the parse cache, which pickles
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


def _bomb(value: str, copies: int) -> str:
    """YAML of one ``value`` aliased ``copies`` times: a few bytes more than the value, ``copies``
    times its size once built."""
    return f'one: &one "{value}"\nmany: [{", ".join(["*one"] * copies)}]\n'


def test_a_string_aliased_into_megabytes_is_refused_by_its_size(monkeypatch):
    from wireconf.core import yaml_source

    monkeypatch.setattr(yaml_source, "MAX_ALIAS_CHARS", 1_000_000)  # small, to prove the bound cheaply
    text = _bomb("x" * 100_000, 30)  # 30 nodes, 3 MB once expanded
    with pytest.raises(yaml_source.YamlRefused, match="beyond 1,000,000 characters"):
        yaml_source.load_yaml(text)
    assert yaml_source.load_yaml(_bomb("x" * 100_000, 5))["many"][4] == "x" * 100_000


def test_a_diff_line_serialises_only_what_it_shows():
    from wireconf.cassettes.compare import render_diff

    text = "y" * 100_000
    expected, actual = {"a": [text] * 100}, {"a": [text] * 100, "b": [text] * 100}  # 10 MB of JSON each
    tracemalloc.start()
    try:
        lines = render_diff(expected, actual)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert lines[0].startswith('$.b: unexpected key (got ["yyy') and len(lines[0]) < 300, lines
    assert peak < 2_000_000, peak  # the value's JSON is ten times that


def test_a_baseline_of_aliases_is_refused_naming_the_file(tmp_path):
    from wireconf.reports.baseline import BaselineError, load_baseline

    path = tmp_path / "bomb.yaml"
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):  # 9**9 strings from ten lines
        lines.append(f"{name}: &{name} [{', '.join(['*' + prev] * 9)}]")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(BaselineError, match=r"bomb\.yaml: refused: aliases expand"):
        load_baseline(path)


def test_a_vcrpy_cassette_of_aliases_is_refused_by_import(tmp_path):
    from wireconf.cassettes.vcr_import import NotACassette, read

    path = tmp_path / "cassette.yaml"
    path.write_text(_bomb("x" * 1000, 30_000).replace("many:", "interactions:"))  # 30 MB once built
    with pytest.raises(NotACassette, match="refused: aliases expand") as raised:
        read(path)
    assert str(path) in str(raised.value)
