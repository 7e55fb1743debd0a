"""The Gemini wire expectations are bodies the google-genai SDK's own types accept, spelt as the REST
reference spells them.

The corpus's Gemini request bodies are written by hand from the §7.9 rules; this test holds them
against the official SDK's pydantic types (which forbid unknown fields, check enums and base64), and
checks that each piece is already in the SDK's camelCase alias spelling (proto3 JSON's canonical
form): a dump with ``by_alias=True`` gives the piece back unchanged. Values passed through
``additionalProperties`` are the author's own spelling and are only validated.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from wireconf.core.yaml_source import to_plain
from wireconf.corpus.loader import Corpus

REQUEST_FIELDS: dict[str, Any] = {
    "contents": types.Content,
    "systemInstruction": types.Content,
    "tools": types.Tool,
    "toolConfig": types.ToolConfig,
    "safetySettings": types.SafetySetting,
    "cachedContent": str,
    "generationConfig": types.GenerationConfig,
}
"""The body fields of generateContent (google-genai's _GenerateContentParameters_to_mldev and
_GenerateContentConfig_to_mldev: everything else moves to the URL or is Vertex-only)."""


def _gemini_wire_cases(corpus: Corpus) -> list[Any]:
    return [
        c
        for c in corpus.cases()
        if c.kind == "wire"
        and c.model.api == "gemini.generate_content"
        and "expect" in c.model.model_fields_set
    ]


def _keys(value: Any) -> Any:
    """The key structure of a value: leaves become None (the SDK re-encodes bytes as URL-safe base64,
    which the API reads like the standard alphabet the case gives; spelling is what is compared)."""
    if isinstance(value, dict):
        return {k: _keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_keys(v) for v in value]
    return None


def _dump(model: Any) -> Any:
    return model.model_dump(by_alias=True, exclude_none=True)


def _check_piece(kind: Any, value: Any, passed_through: set[str]) -> None:
    if kind is str:
        assert isinstance(value, str)
        return
    own = {k: v for k, v in value.items() if k not in passed_through} if isinstance(value, dict) else value
    kind.model_validate(value)  # the whole piece, pass-through values included
    assert _keys(_dump(kind.model_validate(own))) == _keys(own), "not in the SDK's camelCase spelling"


def test_there_are_gemini_wire_cases(corpus: Corpus) -> None:
    assert len(_gemini_wire_cases(corpus)) >= 30


@pytest.mark.parametrize("field", sorted(REQUEST_FIELDS))
def test_every_request_field_is_exercised(corpus: Corpus, field: str) -> None:
    assert any(field in to_plain(c.raw["expect"]) for c in _gemini_wire_cases(corpus))


def test_expected_bodies_are_sdk_shapes(corpus: Corpus) -> None:
    problems = []
    for case in _gemini_wire_cases(corpus):
        body = to_plain(case.raw["expect"])
        options = to_plain(case.raw["agent"]["model"].get("options") or {})
        passed_through = set(options.get("additionalProperties") or {})
        unknown = set(body) - set(REQUEST_FIELDS)
        if unknown:
            problems.append(f"{case.id}: not generateContent body fields: {sorted(unknown)}")
        for field, value in body.items():
            kind = REQUEST_FIELDS.get(field)
            if kind is None or field in passed_through:
                continue
            try:
                for piece in value if isinstance(value, list) else [value]:
                    _check_piece(kind, piece, passed_through if field == "generationConfig" else set())
            except Exception as exc:  # a validation error or a spelling difference, reported per case
                problems.append(f"{case.id}: {field}: {exc}")
    assert not problems, "\n".join(problems)


def test_a_wrong_spelling_is_caught() -> None:
    """The check itself: the Python attribute spelling and an OpenAI-shaped part both fail it."""
    with pytest.raises(AssertionError):
        _check_piece(
            types.Content,
            {"role": "user", "parts": [{"inline_data": {"mime_type": "a/b", "data": "eHg="}}]},
            set(),
        )
    with pytest.raises(ValueError):
        _check_piece(types.Content, {"role": "user", "parts": [{"type": "text", "text": "x"}]}, set())
