"""The provider-contract check (``wireconf.judging.schema_check`` on ``wireconf.providers.contract``): a
request body against the pinned contract of its api's provider, with jsonschema; only the problems a
runtime's request does not share with its expectation are charged; and the verdict depends on the
checked-in contract only, never on the SDK installed beside the runtime."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.conftest import CASES
from wireconf.judging.schema_check import problems, rejections
from wireconf.kinds.registry import open_corpus


def _chat(**extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": "hi"}], **extra}


def _paths(body: dict[str, Any], api: str = "openai.chat") -> list[str]:
    return [p.path for p in problems(api, body)]


def test_a_valid_request_has_no_problem() -> None:
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    assert _paths(_chat(temperature=0.5, tools=tools, stream=True)) == []


def test_an_unknown_top_level_key_is_found() -> None:
    assert _paths(_chat(top_k=3)) == ["$.top_k"]


def test_an_unknown_key_inside_an_item_is_found_and_only_it() -> None:
    body = _chat()
    body["messages"] = [{"role": "user", "content": [{"type": "file", "file": {"url": "https://x/y"}}]}]
    assert _paths(body) == ["$.messages[0].content[0].file.url"]  # no cascade to messages or model


def test_a_value_outside_an_enum_is_found_where_it_is() -> None:
    """The issue's example: OpenAI's contract allows only wav and mp3 for input_audio."""
    body = _chat()
    body["messages"] = [
        {"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "x", "format": "flac"}}]}
    ]
    (problem,) = problems("openai.chat", body)
    assert problem.path == "$.messages[0].content[0].input_audio.format"
    assert "'wav', 'mp3'" in problem.message and problem.schema == "CreateChatCompletionRequest"


def test_a_missing_required_key_is_named_at_its_own_path() -> None:
    body = {"model": "m", "input": "hi", "tools": [{"type": "function", "name": "f", "parameters": {}}]}
    assert _paths(body, "openai.responses") == ["$.tools[0].strict"]  # FunctionTool requires strict


def test_a_gemini_body_is_read_in_either_spelling_and_refuses_unknown_fields() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": {"topK": 3}}
    assert _paths(body, "gemini.generate_content") == []
    body["generation_config"] = body.pop("generationConfig")  # the proto name: the parser takes both
    body["generation_config"]["stop_sequences"] = ["x"]
    assert _paths(body, "gemini.generate_content") == []
    body["generation_config"]["nope"] = 1
    body["other"] = 2
    assert _paths(body, "gemini.generate_content") == ["$.generation_config.nope", "$.other"]


def test_an_enum_of_gemini_is_a_name_or_a_number() -> None:
    config = {"functionCallingConfig": {"mode": "AUTO"}}
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "toolConfig": config}
    assert _paths(body, "gemini.generate_content") == []
    config["functionCallingConfig"]["mode"] = "SOMETIMES"
    assert _paths(body, "gemini.generate_content") == ["$.toolConfig.functionCallingConfig.mode"]


def test_the_anthropic_contract_has_the_sampling_parameters_the_spec_maps() -> None:
    """The contract is pinned (anthropic 0.125.0): a temperature is accepted whatever SDK is installed
    (anthropic 2.x's request type has none)."""
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    assert _paths({**body, "temperature": 0.2, "top_p": 0.9, "top_k": 5}, "anthropic.messages") == []
    assert _paths({**body, "temprature": 0.2}, "anthropic.messages") == ["$.temprature"]


def test_the_verdict_does_not_depend_on_the_installed_sdk() -> None:
    """The same request, judged in a process whose ``anthropic`` package is a stand-in without a single
    request type: the same problems. The check reads the checked-in contract, never the SDK."""
    body = {
        "model": "m",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "hi"}],
        "temperature": 2,
        "top_k": 5,
        "n": 1,
    }
    here = [p.text for p in problems("anthropic.messages", body)]
    code = (
        "import sys, types, json\n"
        "fake = types.ModuleType('anthropic'); fake.__version__ = '99.0.0'; sys.modules['anthropic'] = fake\n"
        "from wireconf.providers.contract import problems\n"
        f"print(json.dumps([p.text for p in problems('anthropic.messages', {body!r})]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == here
    assert [t.split(":")[0] for t in here] == ["$.n"]  # temperature and top_k are in the pinned contract


def test_an_api_without_a_contract_or_a_body_that_is_not_an_object_is_not_checked() -> None:
    assert rejections("no.such-api", {"x": 1}, {}) == []
    assert rejections("openai.chat", ["x"], {}) == []


def test_only_problems_the_expectation_does_not_share_are_charged() -> None:
    expected = _chat(top_k=3)
    assert rejections("openai.chat", _chat(top_k=3, n=2), expected) == []
    (difference,) = rejections("openai.chat", _chat(top_k=3, seed="x"), expected)
    assert difference.change == "provider-rejects" and difference.path == "$.seed"


def test_a_union_that_takes_neither_value_at_one_place_is_not_charged() -> None:
    """An expected output part in a user message (no ``annotations``) and a runtime's (with them) are
    both refused by every member of the union at ``$.input[0].content[0]``; the reasons differ, the place
    is the expectation's, and a problem elsewhere is still charged."""
    spec = {"role": "user", "content": [{"type": "output_text", "text": "hi"}]}
    runtime = {"role": "user", "content": [{"type": "output_text", "text": "hi", "annotations": []}]}
    expected = {"model": "m", "input": [spec]}
    actual = {"model": "m", "input": [runtime]}
    (theirs,), (ours,) = problems("openai.responses", actual), problems("openai.responses", expected)
    assert theirs.union and ours.union and (theirs.path, theirs.schema) == (ours.path, ours.schema)
    assert theirs.text != ours.text
    assert rejections("openai.responses", actual, expected) == []
    (elsewhere,) = rejections("openai.responses", {**actual, "top_k": 3}, expected)
    assert elsewhere.path == "$.top_k"
    # a union at a place where the expectation's value is accepted stays charged
    (charged,) = rejections("openai.responses", actual, {"model": "m", "input": "hi"})
    assert charged.path == theirs.path


def test_every_request_the_spec_builds_that_the_contract_rejects_is_declared_by_a_rule_it_cites() -> None:
    """The corpus's expected requests (the reference's, the spec's pseudocode) that the contract rejects
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
    body = {"model": "m", "input": []}
    (problem,) = problems("openai.embeddings", body)
    assert problem.path == "$.input"
    assert "no member of the union accepts it" in problem.message and "non-empty" in problem.message
