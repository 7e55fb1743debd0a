"""Prompty's upstream conformance vectors as cases (``wireconf import-vectors``) and the comparison they
need (``expect_keys: listed``): the import is reproducible, keeps the hand-written rules, leaves out what
it cannot express with the reason, and a listed comparison still fails on what the vector lists."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import CASES, REPO, small_corpus
from wireconf.cli import main
from wireconf.corpus.prompty_vectors import FILE_NAME, import_vectors, load_vectors
from wireconf.judging.listed import listed_only
from wireconf.judging.outcome import CanonicalOutcome
from wireconf.judging.verdict import judge
from wireconf.kinds.registry import open_corpus
from wireconf.kinds.wire import WireCase

_CANDIDATES = [
    Path(os.environ.get("WIRECONF_PROMPTY_VECTORS", "")),
    *(base / "shared" / "third-party" / "prompty-75e4d0e5" / "vectors.json" for base in REPO.parents),
]
VECTORS = next((path for path in _CANDIDATES if path.is_file()), _CANDIDATES[-1])
needs_vectors = pytest.mark.skipif(
    not VECTORS.is_file(), reason="Prompty's vectors.json is not on this machine"
)
SECTIONS_7_8 = {("WireConformance", "toRequest"), ("Processor", "process"), ("Processor", "processStream")}


def committed() -> dict[Path, str]:
    return {path: path.read_text(encoding="utf-8") for path in sorted(CASES.rglob(FILE_NAME))}


@needs_vectors
def test_reimporting_reproduces_the_committed_cases_rules_included():
    """Only `rules` is written by hand; everything else comes from the vectors, unedited."""
    imported = import_vectors(VECTORS, CASES, "75e4d0e5")
    assert imported.files == committed()
    assert imported.without_rules == []


@needs_vectors
def test_every_section_7_and_8_vector_is_a_case_or_left_out_with_its_reason():
    vectors = [v for v in load_vectors(VECTORS) if (v["contract"], v["operation"]) in SECTIONS_7_8]
    names = {v["vector"]["name"] for v in vectors}
    corpus = open_corpus(CASES)
    cases = {case.model.vector.name: case for case in corpus.cases() if case.model.vector is not None}
    imported = import_vectors(VECTORS, CASES, "75e4d0e5")
    skipped = {item.name: item.reason for item in imported.skipped}
    assert set(cases) | set(skipped) == names and not set(cases) & set(skipped)
    stream_vectors = {v["vector"]["name"] for v in vectors if v["operation"] == "processStream"}
    assert (
        set(skipped)
        == stream_vectors
        == {
            "partial_text_then_indeterminate_failure",
            "stream_refusal_is_determinate",
        }
    )
    assert all("not §8.6's process_stream" in reason for reason in skipped.values())
    for name, case in cases.items():
        assert case.model.vector.commit == "75e4d0e5"
        assert case.id.endswith(f".vector.{name}")
        assert case.model.expect_keys == "listed", name


def test_a_new_vector_is_written_without_rules_and_the_command_names_it(tmp_path, capsys):
    vectors = {
        "vectors": [
            {
                "contract": "WireConformance",
                "operation": "toRequest",
                "vector": {
                    "name": "brand_new",
                    "description": "a vector nobody has reviewed yet",
                    "input": {"provider": "openai", "apiType": "chat", "model_id": "m", "messages": []},
                    "expected": {"request_body": {"model": "m"}},
                },
            },
            {"contract": "Renderer", "operation": "render", "vector": {"name": "outside_7_and_8"}},
        ]
    }
    source = tmp_path / "prompty-abcdef1" / "vectors.json"
    source.parent.mkdir()
    source.write_text(json.dumps(vectors))
    corpus = tmp_path / "corpus"
    assert main(["import-vectors", str(source), "--corpus", str(corpus)]) == 1
    assert "wire.openai.chat.vector.brand_new" in capsys.readouterr().err
    written = (corpus / "wire" / "openai.chat" / FILE_NAME).read_text()
    assert "rules: []" in written and "commit: abcdef1" in written and "outside_7_and_8" not in written


def test_a_missing_commit_is_asked_for(tmp_path, capsys):
    source = tmp_path / "vectors.json"
    source.write_text(json.dumps({"vectors": []}))
    assert main(["import-vectors", str(source), "--corpus", str(tmp_path / "c")]) == 2
    assert "--commit" in capsys.readouterr().err


def test_a_file_that_is_not_vectors_is_refused_naming_it(tmp_path, capsys):
    source = tmp_path / "vectors.json"
    source.write_text("[1, 2]")
    assert main(["import-vectors", str(source), "--commit", "abcdef1", "--corpus", str(tmp_path)]) == 1
    assert str(source) in capsys.readouterr().err


# --- expect_keys: listed ------------------------------------------------------------------------------


def test_listed_keeps_only_the_keys_the_expectation_lists_at_every_depth():
    expected = {"model": "m", "tools": [{"function": {"name": "f"}}]}
    actual = {
        "model": "m",
        "stream": False,
        "tools": [{"type": "function", "function": {"name": "f", "x": 1}}],
    }
    assert listed_only(expected, actual) == {"model": "m", "tools": [{"function": {"name": "f"}}]}
    # a list of another length is kept whole, so its length still differs
    assert listed_only({"a": [{"k": 1}]}, {"a": [{"k": 1, "z": 0}, {"k": 2}]}) == {
        "a": [{"k": 1, "z": 0}, {"k": 2}]
    }


def _wire_case(**extra: object) -> WireCase:
    return WireCase.model_validate(
        {
            "id": "wire.openai.chat.x",
            "kind": "wire",
            "api": "openai.chat",
            "rules": ["r/x"],
            "agent": {"model": {"id": "m"}},
        }
        | extra
    )


def _verdict(case: WireCase, value: object) -> list[str]:
    """The verdict's lines as a person reads them (differences are ``Difference`` records)."""
    return [str(line) for line in judge(case, CanonicalOutcome(value, None, "", [], None), "request body")]


def test_listed_passes_extra_keys_and_still_fails_on_what_it_lists():
    case = _wire_case(expect={"model": "m", "messages": [{"role": "user"}]}, expect_keys="listed")
    assert (
        _verdict(case, {"model": "m", "messages": [{"role": "user", "content": "Hi"}], "stream": False}) == []
    )
    lines = _verdict(case, {"model": "n", "messages": [{"content": "Hi"}], "stream": False})
    assert (
        lines[0]
        == "the request body differs from the expectation (on the keys it lists: expect_keys: listed):"
    )
    assert '  $.model: expected "m", got "n"' in lines
    assert '  $.messages[0].role: missing key (expected "user")' in lines
    assert not any("stream" in line for line in lines)


def test_exact_comparison_stays_the_default():
    case = _wire_case(expect={"model": "m"})
    assert case.expect_keys == "all"
    assert _verdict(case, {"model": "m", "stream": False}) == [
        "the request body differs from the expectation:",
        "  $.stream: unexpected key (got false)",
    ]


def test_listed_needs_an_expectation_to_list_keys_of():
    with pytest.raises(ValueError, match="expect_keys: listed compares the keys of `expect`"):
        _wire_case(expect_error={"type": "ValueError"}, expect_keys="listed")


def test_bindings_are_accepted_in_both_forms_of_the_spec_s_model(tmp_path, run_corpus):
    rules = "rules:\n  - {id: r/x, level: MUST, basis: text, source: {seed: s, section: r}, statement: s}\n"
    root = small_corpus(
        tmp_path / "corpus",
        rules,
        "b.yaml",
        """\
        x-tool: &tool
          {kind: function, name: f, description: d, parameters: [{name: a, kind: string, required: true}]}
        x-hi: &hi [{role: user, content: [{kind: text, value: hi}]}]  # a request the provider takes
        cases:
          - {id: wire.openai.chat.list, kind: wire, api: openai.chat, rules: [r/x], messages: *hi,
             agent: {model: {id: m},
             tools: [{<<: *tool, bindings: [{name: a, input: x}]}]}, expect_keys: listed,
             expect: {tools: [{function: {parameters: {properties: {}, required: []}}}]}}
          - {id: wire.openai.chat.named, kind: wire, api: openai.chat, rules: [r/x], messages: *hi,
             agent: {model: {id: m},
             tools: [{<<: *tool, bindings: {a: {input: x}}}]}, expect_keys: listed,
             expect: {tools: [{function: {parameters: {properties: {}, required: []}}}]}}
          - {id: wire.openai.chat.named-short, kind: wire, api: openai.chat, rules: [r/x], messages: *hi,
             agent: {model: {id: m},
             tools: [{<<: *tool, bindings: {a: x}}]}, expect_keys: listed,
             expect: {tools: [{function: {parameters: {properties: {}, required: []}}}]}}
        """,
    )
    run = run_corpus(target=root)
    assert run.outcomes == {
        "wire.openai.chat.list": "passed",
        "wire.openai.chat.named": "passed",
        "wire.openai.chat.named-short": "passed",
    }
