"""What the Gemini body's extra keys break (7.9.7/no-other-keys) and how LiteLLM's adapter reports a body.

The differences are the ones the comparison itself finds between a corpus-shaped expectation and a
body a runtime sent (LangChain's empty ``safetySettings`` and its own ``temperature``, the AI SDK's
``toolConfig``), attributed with the project's catalogue: a provider default is still a deviation the
rule names, and also representation; a value that is no provider default is not."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import CASES
from wireconf.cassettes.compare import differences
from wireconf.corpus.rules import Catalogue, load_catalogue
from wireconf.judging.attribution import DECLARED, attribute
from wireconf.providers.google import read_body

API = "gemini.generate_content"
EXPECTED = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    loaded = load_catalogue(CASES / "rules.yaml")
    assert not loaded.problems
    return loaded


def _attributed(catalogue: Catalogue, actual: dict[str, Any], case: dict[str, Any] | None = None) -> dict:
    found = list(differences(EXPECTED, actual, subject="request"))
    assert found, "the bodies do not differ"
    attributions = attribute(found, "wire", API, [], catalogue, case or {"agent": {}, "messages": []})
    return {a.difference.path: a for a in attributions}


@pytest.mark.parametrize(
    ("extra", "representation"),
    [
        ({"safetySettings": []}, "safety-settings-default"),
        ({"toolConfig": {"functionCallingConfig": {"mode": "AUTO"}}}, "function-calling-mode-default"),
        ({"toolConfig": {"functionCallingConfig": {"mode": "VALIDATED"}}}, ""),
        ({"cachedContent": "cachedContents/abc"}, ""),
    ],
)
def test_a_top_level_key_the_agent_did_not_set_breaks_no_other_keys(
    catalogue: Catalogue, extra: dict[str, Any], representation: str
) -> None:
    (path, found), *rest = _attributed(catalogue, {**EXPECTED, **extra}).items()
    assert not rest and path == f"$.{next(iter(extra))}"
    assert found.basis == DECLARED and found.rules == ("7.9.7/no-other-keys",)
    assert found.representation == representation


def test_inside_generation_config_a_provider_default_is_representation_a_runtime_default_is_not(
    catalogue: Catalogue,
) -> None:
    expected = {**EXPECTED, "generationConfig": {"maxOutputTokens": 100}}
    actual = {
        **EXPECTED,
        "generationConfig": {"maxOutputTokens": 100, "candidateCount": 1, "temperature": 0.7},
    }
    case = {"agent": {"model": {"options": {"maxOutputTokens": 100}}}, "messages": []}
    found = {
        a.difference.path: a
        for a in attribute(
            list(differences(expected, actual, subject="request")), "wire", API, [], catalogue, case
        )
    }
    assert set(found) == {"$.generationConfig.candidateCount", "$.generationConfig.temperature"}
    assert all(a.rules == ("7.9.7/no-other-keys",) for a in found.values())
    assert found["$.generationConfig.candidateCount"].representation == "candidate-count-default"
    assert found["$.generationConfig.temperature"].representation == ""


def test_a_request_level_option_the_agent_set_is_still_its_own_rule(catalogue: Catalogue) -> None:
    case = {"agent": {"model": {"options": {"additionalProperties": {"cachedContent": "c"}}}}, "messages": []}
    (found,) = _attributed(catalogue, {**EXPECTED, "cachedContent": "c"}, case).values()
    assert found.rules == ("7.9.5/request-level-additional-properties",)


def test_a_gemini_body_is_read_under_json_names() -> None:
    sent = {
        "contents": [
            {"role": "user", "parts": [{"inline_data": {"mime_type": "image/png", "data": "AA=="}}]}
        ],
        "system_instruction": {"parts": [{"text": "Be brief."}]},
        "generationConfig": {"max_output_tokens": 50, "response_json_schema": {"properties": {"a_b": {}}}},
    }
    assert read_body(sent) == {
        "contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": "AA=="}}]}],
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "generationConfig": {"maxOutputTokens": 50, "responseJsonSchema": {"properties": {"a_b": {}}}},
    }


def test_a_gemini_body_with_a_field_under_both_names_is_read_as_sent() -> None:
    sent = {"contents": [], "generationConfig": {"maxOutputTokens": 9999, "max_output_tokens": 100}}
    assert read_body(sent) == sent
