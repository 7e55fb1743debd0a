"""The corpus's expected requests are conversations the providers accept (issue 32): no tool call without
its result, no result without its call, no function call turn out of place, no empty message but the last
assistant one (``tools/provider_rejects.py``, with the providers' sources)."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.conftest import CASES, REPO


@pytest.fixture(scope="module")
def survey():
    spec = importlib.util.spec_from_file_location("provider_rejects", REPO / "tools" / "provider_rejects.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["provider_rejects"] = module
    spec.loader.exec_module(module)
    return module


LEFT = {
    "wire.openai.chat.no-messages": "§7.1.7 builds `messages: []`, which openapi.yaml's minItems: 1 refuses",
    "wire.openai.responses.call-id-null-without-tool-call-id": "§7.4.1 reads call_id from metadata: null",
}
"""Requests the spec's own text builds that the provider refuses by its schema: the cases are about that
text, so they keep it; the provider-schema check of the expectations says so (issue 32's equivalences)."""


def test_no_expected_request_is_a_conversation_the_provider_refuses(survey):
    found = survey.refused(CASES)
    assert {case for case, _, _ in found} <= set(LEFT), "\n".join(f"{c} ({w}): {p}" for c, w, p in found)


CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("api", "body", "refused"),
    [
        ("openai.chat", {"messages": [{"role": "assistant", "tool_calls": [CALL]}]}, True),
        (
            "openai.chat",
            {
                "messages": [
                    {"role": "assistant", "tool_calls": [CALL]},
                    {"role": "tool", "tool_call_id": "c1"},
                ]
            },
            False,
        ),
        ("openai.chat", {"messages": [{"role": "tool", "tool_call_id": "c1"}]}, True),
        ("openai.chat", {"messages": []}, True),
        ("openai.responses", {"input": [{"type": "function_call", "call_id": "c1"}]}, True),
        (
            "openai.responses",
            {
                "input": [
                    {"type": "function_call", "call_id": "c1"},
                    {"type": "function_call_output", "call_id": "c1"},
                ]
            },
            False,
        ),
        (
            "anthropic.messages",
            {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]}]},
            True,
        ),
        (
            "anthropic.messages",
            {
                "messages": [
                    {"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]},
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
                ]
            },
            False,
        ),
        (
            "anthropic.messages",
            {"messages": [{"role": "assistant", "content": []}, {"role": "user", "content": "x"}]},
            True,
        ),
        (
            "anthropic.messages",
            {"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "content": []}]},
            False,
        ),
        (
            "gemini.generate_content",
            {"contents": [{"role": "model", "parts": [{"functionCall": {"name": "f"}}]}]},
            True,
        ),
        (
            "gemini.generate_content",
            {
                "contents": [
                    {"role": "user", "parts": [{"text": "x"}]},
                    {
                        "role": "model",
                        "parts": [{"functionCall": {"name": "f"}}, {"functionCall": {"name": "g"}}],
                    },
                    {"role": "user", "parts": [{"functionResponse": {"name": "f"}}]},
                ]
            },
            True,  # two calls, one response
        ),
        (
            "gemini.generate_content",
            {
                "contents": [
                    {"role": "user", "parts": [{"text": "x"}]},
                    {"role": "model", "parts": [{"functionCall": {"name": "f"}}]},
                    {"role": "user", "parts": [{"functionResponse": {"name": "f"}}]},
                ]
            },
            False,
        ),
    ],
)
def test_each_check_refuses_what_its_provider_refuses(survey, api, body, refused):
    assert bool(list(survey.CHECKS[api](body))) is refused
