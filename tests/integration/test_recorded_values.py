"""``{$recorded: pointer}`` expectations: resolved from the case's recorded response, then exact."""

from __future__ import annotations

import pytest

from tests.conftest import CASES, REPO
from wireconf.judging.recorded_values import has_references, pointer_get, resolve

RULES = (CASES / "rules.yaml").read_text()
EMBEDDING = "openai/embeddings__05__openinference__test_batch_embedding_with_different_model_i0"


def test_pointer_walks_objects_and_arrays():
    document = {"data": [{"embedding": [0.5, -1.0]}], "a/b": {"~x": 1}, "": 2}
    assert pointer_get(document, "/data/0/embedding") == [0.5, -1.0]
    assert pointer_get(document, "/data/0/embedding/1") == -1.0
    assert pointer_get(document, "/a~1b/~0x") == 1
    assert pointer_get(document, "/") == 2
    assert pointer_get(document, "") == document


@pytest.mark.parametrize(
    ("pointer", "message"),
    [
        ("/data/1/embedding", "/data/1/embedding: the recorded response has nothing at /data/1"),
        ("/data/0/vector", "/data/0/vector: the recorded response has nothing at /data/0/vector"),
        ("/data/x", "/data/x: the recorded response has nothing at /data/x"),
        ("data/0", "'data/0' is not a JSON pointer"),
    ],
)
def test_pointer_names_the_missing_step(pointer, message):
    with pytest.raises(KeyError) as info:
        pointer_get({"data": [{"embedding": [1.0]}]}, pointer)
    assert message in info.value.args[0]


def test_resolve_replaces_references_anywhere():
    expect = [{"$recorded": "/v"}, {"k": {"$recorded": "/w/0"}}, "plain", {"$recorded": "/v", "x": 1}]
    assert has_references(expect)
    assert resolve(expect, {"v": [1, 2], "w": ["z"]}) == [
        [1, 2],
        {"k": "z"},
        "plain",
        {"$recorded": "/v", "x": 1},
    ]
    assert not has_references([{"$recorded": "/v", "x": 1}, "text"])


def _corpus(pytester, cases: str):
    root = pytester.path / "corpus"
    root.mkdir()
    (root / "rules.yaml").write_text(RULES)
    (root / "c.yaml").write_text("cases:\n" + cases)
    (pytester.path / "cassettes").symlink_to(REPO / "cassettes")
    return root


def _process_case(case_id: str, expect: str, response: str = f"{{cassette: {EMBEDDING}}}") -> str:
    return (
        f"  - id: process.openai.embeddings.{case_id}\n"
        "    kind: process\n"
        "    api: openai.embeddings\n"
        "    rules: [8.2/list-of-vectors]\n"
        "    agent: {model: {id: m}}\n"
        f"    response: {response}\n"
        f"    expect: {expect}\n"
    )


def test_recorded_values_pass_and_catch_a_deviation(pytester, run_corpus):
    cases = (
        _process_case("both", "[{$recorded: /data/0/embedding}, {$recorded: /data/1/embedding}]")
        + _process_case("swapped", "[{$recorded: /data/1/embedding}, {$recorded: /data/0/embedding}]")
        + _process_case(
            "inline",
            "[[0.5], {$recorded: /data/1/embedding}]",
            "{body: {object: list, model: m, data: [{embedding: [0.5]}, {embedding: [0.25, 1.5]}]}}",
        )
    )
    run = run_corpus(target=_corpus(pytester, cases))
    assert run.outcomes == {
        "process.openai.embeddings.both": "passed",
        "process.openai.embeddings.swapped": "failed",
        "process.openai.embeddings.inline": "passed",
    }
    assert (
        "$[0][0]: expected -0.0022836125, got -0.018899012"
        in run.longreprs["process.openai.embeddings.swapped"]
    )


def test_unresolvable_reference_is_an_error_naming_case_and_line(pytester, run_corpus):
    cases = _process_case("typo", "{$recorded: /data/2/embedding}") + (
        "  - id: wire.openai.embeddings.no-response\n"
        "    kind: wire\n"
        "    api: openai.embeddings\n"
        "    rules: [7.2/model-from-agent]\n"
        "    agent: {model: {id: m}}\n"
        "    expect: {$recorded: /model}\n"
    )
    run = run_corpus(target=_corpus(pytester, cases))
    assert run.outcomes == {
        "process.openai.embeddings.typo": "error",
        "wire.openai.embeddings.no-response": "error",
    }
    typo = run.longreprs["process.openai.embeddings.typo"]
    assert "case process.openai.embeddings.typo (" in typo
    assert "`$recorded` in the expectation (line 8): /data/2/embedding: " in typo
    assert "the recorded response has nothing at /data/2" in typo
    assert (
        "only a case with a non-streaming recorded response"
        in run.longreprs["wire.openai.embeddings.no-response"]
    )
