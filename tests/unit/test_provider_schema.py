"""The provider-schema check (``wireconf.judging.schema_check``): a request body against the official
SDK's request type, including what pydantic alone lets through (lazy iterables, unknown TypedDict keys),
and only the problems a runtime's request does not share with its expectation are charged."""

from __future__ import annotations

from typing import Any

from tests.conftest import CASES
from wireconf.judging.schema_check import problems, rejections
from wireconf.kinds.registry import open_corpus
from wireconf.providers.google import REQUEST_PARTS
from wireconf.providers.openai import chat_request_type


def _chat(**extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": "hi"}], **extra}


def _paths(body: dict[str, Any]) -> list[str]:
    return [p.path for p in problems(chat_request_type(body), body)]


def test_a_valid_request_has_no_problem() -> None:
    assert _paths(_chat(temperature=0.5, tools=[{"type": "function", "function": {"name": "f"}}])) == []


def test_an_unknown_top_level_key_is_found() -> None:
    assert _paths(_chat(top_k=3)) == ["$.top_k"]


def test_an_unknown_key_inside_an_iterable_item_is_found() -> None:
    body = _chat()
    body["messages"] = [{"role": "user", "content": [{"type": "file", "file": {"url": "https://x/y"}}]}]
    assert _paths(body) == ["$.messages[0].content[0].file.url"]


def test_a_bad_value_inside_a_lazily_validated_iterable_is_found() -> None:
    body = _chat()
    body["messages"] = [
        {"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "x", "format": "flac"}}]}
    ]
    assert _paths(body) == ["$.messages[0].content[0].input_audio.format"]


def test_a_gemini_body_is_checked_part_by_part() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": {"topK": 3}}
    assert problems(REQUEST_PARTS, body) == []
    body["generationConfig"]["nope"] = 1
    body["other"] = 2
    assert sorted(p.path for p in problems(REQUEST_PARTS, body)) == ["$.generationConfig.nope", "$.other"]


def test_only_problems_the_expectation_does_not_share_are_charged() -> None:
    expected = _chat(top_k=3)
    assert rejections("openai.chat", _chat(top_k=3, n=2), expected) == []
    (difference,) = rejections("openai.chat", _chat(top_k=3, seed="x"), expected)
    assert difference.change == "provider-rejects" and difference.path == "$.seed"


def test_an_api_without_a_request_type_or_a_body_that_is_not_an_object_is_not_checked() -> None:
    assert rejections("no.such-api", {"x": 1}, {}) == []
    assert rejections("openai.chat", ["x"], {}) == []


def test_every_request_the_spec_builds_that_the_sdk_rejects_is_declared_by_a_rule_it_cites() -> None:
    """The corpus's expected requests (the reference's, the spec's pseudocode) that the SDK type rejects
    are findings about the spec: a rule the case cites must say so (``provider_rejects``), and a rule
    that says so must have such a case (a claim that no longer holds is found too)."""
    from wireconf.reports.provider_schema import expected_rejections

    corpus = open_corpus(CASES)
    rules = corpus.catalogue.rules
    rejected = expected_rejections(corpus)
    assert rejected  # the corpus has such requests (docs/findings.md lists them)

    def declaring(item: Any, path: str) -> set[str]:
        """The rules that say so of this problem: cited by its case, or declaring (``governs``) its path
        on its api (a key the case sends only because another rule's option is set)."""
        cited = {r for r in item.rules if r in rules and rules[r].provider_rejects}
        governing = {
            rule_id
            for rule_id, g in corpus.catalogue.governing
            if rules[rule_id].provider_rejects
            and g.pattern.fullmatch(path)
            and (not g.apis or item.api in g.apis)
        }
        return cited | governing

    undeclared, shown = [], set()
    for item in rejected:
        for problem in item.problems:
            found = declaring(item, problem.path)
            shown |= found
            if not found:
                undeclared.append(f"{item.case}: {problem.text}")
    assert undeclared == []
    claimed = {r.id for r in rules.values() if r.provider_rejects}
    assert claimed - shown == set()  # a rule that says so has a case that shows it


def test_a_value_no_member_of_a_union_accepts_says_what_each_wanted() -> None:
    body = {"model": "m", "messages": [{"role": "wizard", "content": "x"}]}
    (problem,) = problems(chat_request_type(body), body)
    assert problem.path == "$.messages[0].role"
    assert "no member of the union accepts it" in problem.message and "'user'" in problem.message
