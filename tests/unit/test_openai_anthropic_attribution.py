"""The rules the judged runtimes' OpenAI and Anthropic deviations are declared to break.

The AI SDK, LangChain and LiteLLM differ from the corpus's expectations in ways the catalogue's
``governs`` must name (``wireconf.judging.attribution``): a Responses input item with ``type:
"message"``, an Anthropic ``system`` sent as blocks, an empty conversation refused, tool-call arguments
re-serialised. Each difference here is the one the runtime produced (its path, change and values), judged
against the real catalogue and a case written as the corpus writes it: it names the rule whose
statement it breaks, and the same kind of difference where that rule's input is absent names none of
them.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import CASES
from wireconf.cassettes.compare import differences
from wireconf.core.differences import Difference
from wireconf.corpus.rules import Catalogue, load_catalogue
from wireconf.judging.attribution import DECLARED, attribute_one

USER = {"role": "user", "content": [{"kind": "text", "value": "Hi"}]}


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    loaded = load_catalogue(CASES / "rules.yaml")
    assert not loaded.problems
    return loaded


def _one(expected: Any, actual: Any, subject: str = "request") -> Difference:
    (difference,) = differences(expected, actual, subject=subject)
    return difference


def _raised(exception: str, body: Any = None) -> Difference:
    """A wire case's runtime raised where ``body`` was expected (as ``wireconf.judging.verdict`` says)."""
    text = f"expected a request body, but the adapter raised {exception}"
    return Difference("request", "$", "raised", text, exception, expected=body)


def test_a_responses_message_item_with_a_type_breaks_the_item_shape_and_is_the_sdk_default(
    catalogue: Catalogue,
) -> None:
    difference = _one(
        {"input": [{"role": "user", "content": "Hi"}]},
        {"input": [{"type": "message", "role": "user", "content": "Hi"}]},
    )
    found = attribute_one(difference, "wire", "openai.responses", [], catalogue, {"messages": [USER]})
    assert found.rules == ("7.4.1/metadata-not-merged",)
    assert found.representation == "input-message-type-default"


def test_an_anthropic_system_sent_as_blocks_breaks_the_system_string_rule(catalogue: Catalogue) -> None:
    difference = _one({"system": "Be brief"}, {"system": [{"type": "text", "text": "Be brief"}]})
    case = {"messages": [{"role": "system", "content": [{"kind": "text", "value": "Be brief"}]}, USER]}
    found = attribute_one(difference, "wire", "anthropic.messages", [], catalogue, case)
    assert found.rules == ("7.5/system-lifted",)
    assert found.representation == "system-one-text-block"


@pytest.mark.parametrize(
    ("api", "rule"),
    [("openai.chat", "7.1.7/messages-in-order"), ("openai.responses", "7.4.1/one-item-per-message")],
)
def test_refusing_an_empty_conversation_breaks_the_messages_rule_only_when_it_is_empty(
    catalogue: Catalogue, api: str, rule: str
) -> None:
    refused = _raised("InvalidPromptError")
    assert attribute_one(refused, "wire", api, [], catalogue, {"messages": []}).rules == (rule,)
    assert attribute_one(refused, "wire", api, [], catalogue, {}).rules == (rule,)
    elsewhere = attribute_one(refused, "wire", api, [], catalogue, {"messages": [USER]})
    assert rule not in elsewhere.rules


def test_a_refused_audio_format_is_charged_only_where_the_case_is_about_it(catalogue: Catalogue) -> None:
    wav = {"kind": "audio", "value": "UklGRg==", "mediaType": "audio/x-wav"}
    case = {"messages": [{"role": "user", "content": [wav]}]}
    part = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
    body = {"model": "gpt-4o-audio-preview", "messages": [{"role": "user", "content": [part]}]}
    refused = _raised("UnsupportedFunctionalityError", body)
    about = attribute_one(refused, "wire", "openai.chat", ["7.1.2/audio-format-wav"], catalogue, case)
    assert (about.basis, about.rules) == (DECLARED, ("7.1.2/audio-format-wav",))
    # a case about every part kind does not blame the audio format for a refusal: the rule it cites
    # that governs the audio part of the expected request is the one the refusal breaks
    beside = attribute_one(refused, "wire", "openai.chat", ["7.1.2/audio-part"], catalogue, case)
    assert (beside.basis, beside.rules) == (DECLARED, ("7.1.2/audio-part",))


@pytest.mark.parametrize(
    ("api", "kind", "rule"),
    [
        ("openai.chat", "process", "8.1/arguments-as-sent"),
        ("openai.chat", "stream", "8.6/tool-calls-accumulated-by-index"),
        ("openai.responses", "process", "8.4/arguments-as-sent"),
        ("openai.responses", "stream", "8.4/stream-arguments-accumulated"),
    ],
)
def test_re_serialised_tool_call_arguments_break_the_rule_that_keeps_them_as_sent(
    catalogue: Catalogue, api: str, kind: str, rule: str
) -> None:
    difference = _one(
        [{"id": "c", "name": "f", "arguments": '{"city":"Oslo"}'}],
        [{"id": "c", "name": "f", "arguments": '{"city": "Oslo"}'}],
        subject="result",
    )
    assert attribute_one(difference, kind, api, [], catalogue, {}).rules == (rule,)
