"""A difference is charged by its path, at the finest path where the two sides differ, after the arrays
are aligned; a raise is charged to the rules that require the expected result (issue 32, items 2-4).

Each test judges a corpus case's own expectation against a body a runtime could send, with the real
catalogue (``cases/rules.yaml``): the rules named are the ones whose statements the difference breaks.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from tests.conftest import CASES
from wireconf.cassettes.compare import differences
from wireconf.core.differences import Difference
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.loader import Corpus
from wireconf.judging.attribution import DECLARED, Attribution, attribute, attribute_one
from wireconf.kinds.registry import KINDS, open_corpus

GEMINI = "gemini.generate_content"


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    loaded = open_corpus(CASES)
    assert not loaded.catalogue.problems
    return loaded


def _judged(corpus: Corpus, case_id: str, actual: Any) -> list[Attribution]:
    """The differences between case ``case_id``'s expectation and ``actual``, attributed."""
    case = next(c for c in corpus.cases() if c.id == case_id)
    found = differences(to_plain(case.raw["expect"]), actual, subject=KINDS[case.kind].subject)
    return attribute(list(found), case.kind, case.api, case.model.rules, corpus.catalogue, case.raw)


def _expected(corpus: Corpus, case_id: str) -> Any:
    return copy.deepcopy(to_plain(next(c for c in corpus.cases() if c.id == case_id).raw["expect"]))


def test_an_inserted_turn_is_one_difference_and_the_cited_rules_difference_is_shown(corpus: Corpus) -> None:
    """The issue's runtime put an empty user turn before the history, and sent a JSON array result as the
    array itself: the turn is one difference, and the array result, one turn further on in the runtime's
    body, is compared with its counterpart and breaks the rule the case cites."""
    case_id = "wire.gemini.generate_content.non-object-json-result-wrapped"
    actual = _expected(corpus, case_id)
    actual["contents"].insert(0, {"role": "user", "parts": [{"text": ""}]})
    actual["contents"][3]["parts"][0]["functionResponse"]["response"] = {"output": ["Paris", "Lyon"]}
    inserted, result = _judged(corpus, case_id, actual)
    assert (inserted.difference.path, inserted.difference.change) == ("$.contents[0]", "unexpected-item")
    assert inserted.rules == ("7.9.1/contents-in-order",)  # the rule of the array's items, no option rule
    assert result.difference.path == "$.contents[2].parts[0].functionResponse.response.output"
    assert "the runtime's $.contents[3]" in result.difference.text  # which side's index is which
    assert (result.basis, result.rules) == (DECLARED, ("7.9.1/tool-result-response-object",))


def test_a_dropped_item_is_one_difference_and_the_items_after_it_are_compared_with_their_own() -> None:
    expected = {"input": [{"role": "developer", "content": "Be brief."}, {"role": "user", "content": "Hi"}]}
    actual = {"input": [{"role": "user", "content": [{"type": "input_text", "text": "Hi"}]}]}
    found = differences(expected, actual, subject="request")
    assert [(d.path, d.change) for d in found] == [
        ("$.input[0]", "missing-item"),
        ("$.input[1].content", "type"),
    ]


def test_items_in_another_order_are_compared_place_by_place() -> None:
    """A reordering is no insertion: each place holds another item than the one expected there."""
    calls = [{"id": "a", "name": "f"}, {"id": "b", "name": "g"}]
    found = differences(calls, calls[::-1])
    assert {d.change for d in found} == {"value"} and {d.path for d in found} == {
        "$[0].id",
        "$[0].name",
        "$[1].id",
        "$[1].name",
    }


def test_a_matcher_is_resolved_against_the_item_it_is_aligned_with() -> None:
    from wireconf.judging.matchers import apply_matchers

    expected = [{"id": {"$id": "a"}, "text": "one"}, {"id": {"$id": "b"}, "text": "two"}]
    actual = [{"id": "x", "text": "zero"}, {"id": "y", "text": "one"}, {"id": "z", "text": "two"}]
    found = differences(expected, actual, resolve=apply_matchers)
    assert [(d.path, d.change) for d in found] == [("$[0]", "unexpected-item")]


def test_a_whole_generation_config_is_compared_key_by_key(corpus: Corpus) -> None:
    """deepdiff reports an object sharing few keys as one changed value unless told not to: a
    structured-output request was one difference for the whole ``$.generationConfig``, charged to no
    rule, hiding the ruled one inside it."""
    case_id = "wire.gemini.generate_content.outputs-and-options-share-generation-config"
    actual = _expected(corpus, case_id)
    config = actual["generationConfig"]
    config["responseSchema"] = config.pop("responseJsonSchema")
    config["candidateCount"] = 1
    found = {a.difference.path: a.rules for a in _judged(corpus, case_id, actual)}
    assert found == {
        "$.generationConfig.candidateCount": ("7.9.7/no-other-keys",),
        "$.generationConfig.responseJsonSchema": ("7.9.6/response-json-schema",),
        "$.generationConfig.responseSchema": ("7.9.6/response-json-schema",),
    }


@pytest.mark.parametrize(
    ("case_id", "extra", "rules"),
    [
        # a stop-sequences case is not blamed for a key it is not about
        ("wire.gemini.generate_content.option-stop-sequences", {"responseModalities": ["TEXT"]}, None),
        # `stopSequences: []` in cases that set temperature, topP and topK breaks none of their rules
        ("wire.gemini.generate_content.option-temperature", {"stopSequences": []}, None),
        ("wire.gemini.generate_content.option-top-p", {"stopSequences": []}, None),
        ("wire.gemini.generate_content.option-top-k-supported", {"stopSequences": []}, None),
        # what the option rule's own text names: `stopSequences`, not OpenAI's `stop`
        ("wire.gemini.generate_content.option-stop-sequences", {"stop": ["END"]}, ("7.9.5/stop-sequences",)),
    ],
)
def test_an_extra_key_under_generation_config_goes_to_the_rule_of_its_keys(
    corpus: Corpus, case_id: str, extra: dict[str, Any], rules: tuple[str, ...] | None
) -> None:
    actual = _expected(corpus, case_id)
    actual["generationConfig"].update(extra)
    (found,) = _judged(corpus, case_id, actual)
    assert found.difference.change == "unexpected-key"
    assert found.rules == (rules or ("7.9.7/no-other-keys",))


def test_a_missing_generation_config_is_charged_by_what_it_holds(corpus: Corpus) -> None:
    case_id = "wire.gemini.generate_content.outputs-and-options-share-generation-config"
    actual = _expected(corpus, case_id)
    expected_config = actual.pop("generationConfig")
    (found,) = _judged(corpus, case_id, actual)
    assert (found.difference.path, found.difference.change) == ("$.generationConfig", "missing-key")
    assert set(found.rules) == {
        "7.9.5/temperature",
        "7.9.5/max-output-tokens",
        "7.9.6/json-mime-type",
        "7.9.6/response-json-schema",
    }
    assert set(expected_config) == {
        "temperature",
        "maxOutputTokens",
        "responseMimeType",
        "responseJsonSchema",
    }


def _raise(corpus: Corpus, case_id: str, cited: list[str] | None = None) -> Attribution:
    """A raise where case ``case_id`` expects its result, as the verdict words it."""
    case = next(c for c in corpus.cases() if c.id == case_id)
    expected = to_plain(case.raw["expect"])
    text = f"expected a {KINDS[case.kind].noun}, but the adapter raised ai.InvalidPromptError: no"
    raised = Difference(
        KINDS[case.kind].subject, "$", "raised", text, "InvalidPromptError", expected=expected
    )
    rules = case.model.rules if cited is None else cited
    return attribute_one(raised, case.kind, case.api, rules, corpus.catalogue, case.raw)


def test_a_raise_is_charged_to_the_cited_rules_that_require_the_expected_result(corpus: Corpus) -> None:
    """The issue's SDK refuses a history whose assistant tool calls have no results: the request the
    case expects is the one its cited rules require, and no rule names that raise itself."""
    found = _raise(corpus, "wire.gemini.generate_content.tool-calls-become-function-call-parts")
    assert found.basis == DECLARED
    assert set(found.rules) == {
        "7.9.1/assistant-is-model",
        "7.9.1/tool-calls-as-function-call-parts",
        "7.9.1/tool-call-ids-sent",
    }
    # a cited rule that forbids a key (no `model` in the body, no empty generationConfig) is not broken
    # by a request never built; the rules that govern what the expected body holds are
    found = _raise(corpus, "wire.gemini.generate_content.single-text-message")
    assert set(found.rules) == {"7.9.1/contents-in-order", "7.9.1/parts-always-array", "7.9.2/text-part"}


def test_a_raise_in_a_case_citing_no_rule_of_its_result_is_charged_to_the_rules_of_the_result(
    corpus: Corpus,
) -> None:
    found = _raise(corpus, "wire.gemini.generate_content.non-object-json-result-wrapped", cited=[])
    assert found.basis == DECLARED and found.rules
    assert "7.9.1/tool-result-response-object" not in found.rules  # an if-cited declaration stays so
    assert {"7.9.1/contents-in-order"} <= set(found.rules)


def test_no_raise_where_the_corpus_expects_a_result_is_unruled(corpus: Corpus) -> None:
    """Whatever case a runtime raises in, the raise names a rule: the verdict is a claim, never a
    defect of the corpus."""
    unruled = [
        case.id
        for case in corpus.cases()
        if "expect" in case.raw and case.kind != "trace" and _raise(corpus, case.id).basis != DECLARED
    ]
    assert unruled == []


def test_a_declaration_of_a_place_beats_one_of_a_value_holding_it(corpus: Corpus) -> None:
    """A null missing from a strict optional enum breaks the rule about that item
    (``$**.enum[*]``), not the one about the whole enum (``$**.properties.*.enum**``)."""
    missing = Difference(
        "request",
        "$.response_format.json_schema.schema.properties.audience.enum[2]",
        "missing-item",
        "$.response_format.json_schema.schema.properties.audience.enum[2]: missing item (expected null)",
    )
    case = {"agent": {"model": {"id": "m"}, "outputs": [{"name": "audience", "kind": "string"}]}}
    found = attribute_one(missing, "wire", "openai.chat", [], corpus.catalogue, case)
    assert found.rules == ("7.7/nullable-enum-includes-null",)


@pytest.mark.parametrize(
    ("config", "rules"),
    [
        ({}, ("7.9.5/empty-generation-config-omitted",)),
        # a runtime's own defaults are not an empty generationConfig: they are keys nobody asked for
        ({"temperature": 0.7, "candidateCount": 1}, ("7.9.7/no-other-keys",)),
    ],
)
def test_a_generation_config_sent_where_none_is_expected_breaks_the_rule_of_what_it_holds(
    corpus: Corpus, config: dict[str, Any], rules: tuple[str, ...]
) -> None:
    case_id = "wire.gemini.generate_content.single-text-message"
    (found,) = _judged(corpus, case_id, {**_expected(corpus, case_id), "generationConfig": config})
    assert (found.difference.path, found.rules) == ("$.generationConfig", rules)


def test_a_null_where_a_value_is_expected_is_charged_as_that_value_missing(corpus: Corpus) -> None:
    """A runtime that sends ``instructions: null`` and keeps the system message in ``input`` has left
    out the instructions §7.4 asks for: the rule that governs them missing governs them null."""
    case_id = "wire.openai.responses.system-message-as-instructions"
    actual = _expected(corpus, case_id)
    actual["instructions"] = None
    (found,) = _judged(corpus, case_id, actual)
    assert (found.difference.path, found.difference.change) == ("$.instructions", "type")
    assert (found.basis, found.rules) == (DECLARED, ("7.4/system-as-instructions",))


def test_an_array_sent_as_a_string_is_charged_by_what_the_array_holds(corpus: Corpus) -> None:
    """``input: "Hi"`` where §7.4.1 builds one item per message: the item is missing as written (and
    the provider reads the two alike: ``input-one-user-message``, representation under interop)."""
    case_id = "wire.openai.responses.single-user-text-is-string"
    actual = _expected(corpus, case_id)
    actual["input"] = actual["input"][0]["content"]
    (found,) = _judged(corpus, case_id, actual)
    assert (found.difference.path, found.difference.change) == ("$.input", "type")
    assert (found.basis, found.rules) == (DECLARED, ("7.4.1/one-item-per-message",))
    assert found.representation == "input-one-user-message"


def test_no_request_sent_where_one_is_expected_is_charged_like_a_raise(corpus: Corpus) -> None:
    """An e2e runtime that raised before it sent anything produced none of the request the case
    expects: the rules the case cites that govern it are broken, as for a raise."""
    case = next(c for c in corpus.cases() if c.id == "e2e.openai.chat.text-reply")
    expected = to_plain(case.raw["expect_request"])
    none = Difference("request", "$", "requests", "the runtime sent no request", expected=expected)
    found = attribute_one(none, case.kind, case.api, case.model.rules, corpus.catalogue, case.raw)
    assert found.basis == DECLARED and found.rules
    assert set(found.rules) <= set(case.model.rules)


def test_a_tool_call_streamed_apart_from_its_index_is_charged_to_accumulation_by_index(
    corpus: Corpus,
) -> None:
    """A stream whose fragments open one more tool call than there are indices broke §8.6's
    accumulation per index, whatever the extra call holds."""
    case_id = "stream.openai.chat.interleaved-fragments-accumulate-per-index"
    actual = [*_expected(corpus, case_id), {"id": "", "name": "", "arguments": "{}"}]
    (found,) = _judged(corpus, case_id, actual)
    assert found.difference.change == "unexpected-item"
    assert found.rules == ("8.6/tool-calls-accumulated-by-index",)


def test_a_variant_that_raises_as_the_method_does_breaks_what_the_method_breaks(corpus: Corpus) -> None:
    """``process_async`` raising the same error as ``process`` gives "the same result ... or raises the
    same error" (8/process-async-same-result): the repeated deviation is charged as the method's is;
    a difference of the variant alone breaks that rule."""
    case = next(c for c in corpus.cases() if c.kind == "process" and c.api == "openai.chat")
    expected = to_plain(case.raw["expect"])
    text = "expected a result, but the adapter raised ValueError: Unknown model"
    raised = Difference("result", "$", "raised", text, "ValueError", expected=expected)
    # as judge_variants marks each method's lines, the method's own first
    sync = replace(raised.of_variant("process"), text=f"process: {text}")
    same = replace(raised.of_variant("process_async"), text=f"process_async: {text}")
    own = Difference("result", "$.x", "unexpected-key", "$.x: unexpected key", actual=1).of_variant(
        "process_async"
    )
    first, second = attribute([sync, same], case.kind, case.api, case.model.rules, corpus.catalogue, case.raw)
    assert second.rules == first.rules and "8/process-async-same-result" not in second.rules
    (alone,) = attribute([own], case.kind, case.api, case.model.rules, corpus.catalogue, case.raw)
    assert alone.rules == ("8/process-async-same-result",)
