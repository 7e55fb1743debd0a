"""Provider equivalences (``wireconf.providers.equivalence``) and the interop profile that reads them.

Every equivalence an api lists must cite a source: an API reference URL, or the pinned contract it was
read from (and then the contract says what it quotes). Each class of equivalence listed for one api is
listed for every api whose contract declares the same field, or that api says why not. No equivalence
or condition names a runtime. The matching is tested on hand-made differences (and on differences the
comparison itself finds), and the verdict under each profile on a small catalogue."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CASES
from wireconf.cassettes.compare import differences
from wireconf.core.differences import Difference
from wireconf.corpus.rules import Catalogue, load_catalogue
from wireconf.judging.decision import CaseFacts, decide
from wireconf.providers.contract import declarations, load
from wireconf.providers.equivalence import ANY_PATH, Equivalence, covering, representations
from wireconf.providers.registry import APIS, PROVIDER_OF, equivalences_of

EVERY = [(api.name, e) for api in APIS.values() for e in api.equivalences]
CONTRACT_SOURCES = {
    "openai/openai-openapi@f85dbe22": "openai",
    "anthropic==0.125.0": "anthropic",
    "google-ai-generativelanguage==0.12.1": "google",
}


def test_every_api_of_the_issue_lists_equivalences() -> None:
    for api in ("openai.chat", "anthropic.messages", "gemini.generate_content"):
        assert equivalences_of(api), api
    assert equivalences_of("no.such-api") == ()


@pytest.mark.parametrize(("api", "equivalence"), EVERY, ids=[f"{a}:{e.name}" for a, e in EVERY])
def test_every_equivalence_cites_a_source_that_exists(api: str, equivalence: Equivalence) -> None:
    assert equivalence.quote.strip(), f"{api} {equivalence.name}: no quote of its source"
    source = equivalence.source
    if source.startswith("https://"):
        return
    provider = next((p for prefix, p in CONTRACT_SOURCES.items() if source.startswith(prefix)), None)
    assert provider is not None, (
        f"{api} {equivalence.name}: {source!r} is neither a URL nor a pinned contract"
    )
    contract = load(provider)
    assert contract is not None
    if equivalence.test == "default" and equivalence.quote.startswith("default: "):
        # derived from the contract: the contract states that default at that path
        found = declarations(provider, api)[equivalence.path]
        assert any(equivalence.value in d.defaults for d in found if not d.required), equivalence


def test_names_are_unique_per_api() -> None:
    for api in APIS.values():
        names = [e.name for e in api.equivalences]
        assert len(names) == len(set(names)), api.name


def _diff(expected: Any, actual: Any) -> list[Difference]:
    return list(differences(expected, actual, subject="request"))


TOOLS = {"agent": {"tools": [{"name": "get_weather", "kind": "function"}]}}


@pytest.mark.parametrize(
    ("api", "expected", "actual", "case", "name"),
    [
        ("openai.chat", {"model": "m"}, {"model": "m", "stream": False}, None, "stream-default"),
        ("openai.chat", {"model": "m", "stream": False}, {"model": "m"}, None, "stream-default"),
        ("openai.chat", {"model": "m"}, {"model": "m", "n": 1}, None, "n-default"),
        ("openai.chat", {}, {"tool_choice": "auto"}, TOOLS, "tool-choice-default-with-tools"),
        (
            "openai.chat",
            {"messages": [{"role": "user", "content": "hi"}]},
            {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
            None,
            "content-one-text-part",
        ),
        (
            "openai.chat",
            {"messages": [{"tool_calls": [{"function": {"arguments": '{"a": 1}'}}]}]},
            {"messages": [{"tool_calls": [{"function": {"arguments": '{"a":1}'}}]}]},
            None,
            "tool-call-arguments-json",
        ),
        (
            "anthropic.messages",
            {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
            {"messages": [{"role": "user", "content": "hi"}]},
            None,
            "content-one-text-block",
        ),
        (
            "openai.responses",
            {"input": [{"role": "user", "content": "hi"}]},
            {"input": [{"type": "message", "role": "user", "content": "hi"}]},
            None,
            "input-message-type-default",
        ),
        ("gemini.generate_content", {}, {"safetySettings": []}, None, "safety-settings-default"),
        (
            "gemini.generate_content",
            {"generationConfig": {"temperature": 0}},
            {"generationConfig": {"temperature": 0, "stopSequences": []}},
            None,
            "generation-config-stop-sequences-default",
        ),
        (
            "gemini.generate_content",
            {},
            {"generationConfig": {"responseModalities": ["TEXT"]}},
            None,
            "response-modalities-text",
        ),
        ("gemini.generate_content", {}, {"toolConfig": None}, None, "proto3-json-null"),
        ("openai.chat", {"temperature": 1}, {}, None, "temperature-default"),
        ("openai.chat", {}, {"temperature": 1.0}, None, "temperature-default"),  # one JSON number
        ("openai.responses", {}, {"tool_choice": "auto"}, TOOLS, "tool-choice-default-with-tools"),
        ("openai.responses", {}, {"stream": False}, None, "stream-default"),
        ("openai.responses", {}, {"text": {}}, None, "text-empty"),
        (
            "openai.responses",
            {"input": [{"type": "function_call", "arguments": '{"a": 1}'}]},
            {"input": [{"type": "function_call", "arguments": '{"a":1}'}]},
            None,
            "tool-call-arguments-json",
        ),
        (
            "openai.responses",
            {"input": [{"role": "user", "content": "hi"}]},
            {"input": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]},
            None,
            "content-one-text-block",
        ),
        (  # InputParam: "A text input to the model, equivalent to a text input with the `user` role."
            "openai.responses",
            {"input": [{"role": "user", "content": "hi"}]},
            {"input": "hi"},
            None,
            "input-one-user-message",
        ),
        (
            "openai.responses",
            {
                "input": [
                    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
                ]
            },
            {"input": "hi"},
            None,
            "input-one-user-message",
        ),
        (
            "openai.chat",
            {"tools": [{"function": {"name": "f"}}]},
            {"tools": [{"function": {"name": "f", "strict": None}}]},
            None,
            "tools-function-strict-null",
        ),
        (
            "openai.chat",
            {"messages": [{"role": "assistant", "tool_calls": []}]},
            {"messages": [{"role": "assistant", "tool_calls": [], "content": None}]},
            None,
            "messages-content-null",
        ),
        (
            "anthropic.messages",
            {"messages": [{"content": [{"type": "tool_result", "tool_use_id": "t"}]}]},
            {"messages": [{"content": [{"type": "tool_result", "tool_use_id": "t", "is_error": False}]}]},
            None,
            "tool-result-is-error-default",
        ),
        ("anthropic.messages", {"temperature": 1.0}, {}, None, "temperature-default"),
        (
            "anthropic.messages",
            {},
            {"tool_choice": {"type": "auto"}},
            TOOLS,
            "tool-choice-default-with-tools",
        ),
        ("gemini.generate_content", {}, {"generationConfig": {}}, None, "generation-config-empty"),
        (
            "gemini.generate_content",
            {},
            {"generationConfig": {"candidateCount": 1}},
            None,
            "candidate-count-default",
        ),
    ],
)
def test_a_listed_difference_is_representation(
    api: str, expected: Any, actual: Any, case: dict | None, name: str
) -> None:
    (difference,) = _diff(expected, actual)
    found = covering(difference, equivalences_of(api), case)
    assert found is not None and found.name == name


@pytest.mark.parametrize(
    ("api", "expected", "actual", "case"),
    [
        ("openai.chat", {"model": "m"}, {"model": "m", "stream": True}, None),  # not the default
        ("openai.chat", {"model": "m"}, {"model": "m", "n": 2}, None),
        ("openai.chat", {"model": "m"}, {"model": "m", "n": True}, None),  # true is not 1
        ("openai.chat", {}, {"tool_choice": "auto"}, {"agent": {"tools": []}}),  # no tools: none is
        ("openai.chat", {}, {"tool_choice": "required"}, TOOLS),
        ("openai.chat", {"max_tokens": 4096}, {"max_tokens": 64000}, None),  # behaviour, not form
        (
            "openai.chat",
            {"messages": [{"role": "user", "content": "hi"}]},
            {"messages": [{"role": "user", "content": [{"type": "text", "text": "ho"}]}]},
            None,
        ),
        (
            "openai.chat",
            {"messages": [{"tool_calls": [{"function": {"arguments": '{"a": 1}'}}]}]},
            {"messages": [{"tool_calls": [{"function": {"arguments": '{"a": 2}'}}]}]},
            None,
        ),
        ("gemini.generate_content", {}, {"generationConfig": {"candidateCount": 1, "topK": 3}}, None),
        ("anthropic.messages", {"model": "m"}, {"model": "m", "n": 1}, None),  # openai's default only
        ("anthropic.messages", {}, {"top_p": 1}, None),  # the reference gives top_p no default
        ("openai.chat", {}, {"tools": []}, None),  # the contract states no default for tools
        ("openai.responses", {}, {"tool_choice": "auto"}, {"agent": {"tools": []}}),
        ("openai.chat", {"temperature": 1}, {"temperature": None}, None),  # a value, not an omission
        (  # [] is no content the contract takes for an assistant message: not null's equal
            "openai.chat",
            {"messages": [{"role": "assistant", "tool_calls": []}]},
            {"messages": [{"role": "assistant", "tool_calls": [], "content": []}]},
            None,
        ),
        ("gemini.generate_content", {}, {"generationConfig": {"responseModalities": ["IMAGE"]}}, None),
        ("openai.chat", {"stop_sequences": ["x"]}, {"stopSequences": ["x"]}, None),  # no proto parser
        ("openai.responses", {"input": [{"role": "system", "content": "hi"}]}, {"input": "hi"}, None),
        (  # two messages are no text input
            "openai.responses",
            {"input": [{"role": "user", "content": "hi"}, {"role": "user", "content": "ho"}]},
            {"input": "hi"},
            None,
        ),
        ("openai.responses", {"input": [{"role": "user", "content": "hi"}]}, {"input": "ho"}, None),
        ("openai.chat", {"messages": [{"role": "user", "content": "hi"}]}, {"messages": "hi"}, None),
        (  # a function_call_output item is not a message: its type is no default to leave out
            "openai.responses",
            {"input": [{"call_id": "c", "output": "1"}]},
            {"input": [{"type": "function_call_output", "call_id": "c", "output": "1"}]},
            None,
        ),
    ],
)
def test_an_unlisted_difference_is_never_representation(
    api: str, expected: Any, actual: Any, case: dict | None
) -> None:
    for difference in _diff(expected, actual):
        assert covering(difference, equivalences_of(api), case) is None, difference


def test_a_result_difference_is_never_a_request_equivalence() -> None:
    (difference,) = list(differences({"a": 1}, {"a": 1, "stream": False}, subject="result"))
    assert covering(difference, equivalences_of("openai.chat"), None) is None


RULES = """\
rules:
  - id: 1/no-other-keys
    level: MUST
    basis: text
    governs: [{subject: request, path: '$.*', change: [unexpected-key]}]
    source: {seed: s.txt, section: '1'}
    statement: no other keys.
  - id: 1/max-tokens
    level: MUST
    basis: decision
    gap: silent
    decision: the project sends 4096.
    governs: [{subject: request, path: '$.max_tokens'}]
    source: {seed: s.txt, section: '1'}
    statement: max_tokens is 4096.
"""


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory) -> Catalogue:
    path = Path(tmp_path_factory.mktemp("rules")) / "rules.yaml"
    path.write_text(textwrap.dedent(RULES), encoding="utf-8")
    loaded = load_catalogue(path)
    assert not loaded.problems, loaded.problems
    return loaded


CASE = CaseFacts("c1", "wire", "openai.chat", ("1/no-other-keys",), {"agent": {}})


def test_representation_only_fails_under_spec_and_full_but_not_interop(catalogue: Catalogue) -> None:
    lines = _diff({"model": "m"}, {"model": "m", "stream": False})
    assert decide(lines, CASE, catalogue, profile="full").outcome == "fail"
    assert decide(lines, CASE, catalogue, profile="spec").outcome == "fail"
    decision = decide(lines, CASE, catalogue, profile="interop")
    assert decision.outcome == "outside-profile"
    assert [a.representation for a in decision.attributions] == ["stream-default"]
    assert decision.broken == ["1/no-other-keys"]  # still shown with the rule it breaks


def test_interop_fails_on_what_else_differs_with_its_rule(catalogue: Catalogue) -> None:
    lines = _diff({"model": "m", "max_tokens": 4096}, {"model": "m", "max_tokens": 64000, "stream": False})
    decision = decide(lines, CASE, catalogue, profile="interop")
    assert decision.outcome == "fail"
    judged = [a for a in decision.attributions if not a.representation]
    assert [a.rules for a in judged] == [("1/max-tokens",)]


def test_an_unruled_representation_does_not_fail_interop(catalogue: Catalogue) -> None:
    # no rule governs $.messages[*].content here: unruled, yet the provider reads both alike
    lines = _diff(
        {"messages": [{"content": "hi"}]}, {"messages": [{"content": [{"type": "text", "text": "hi"}]}]}
    )
    assert decide(lines, CASE, catalogue, profile="full").outcome == "fail"
    assert decide(lines, CASE, catalogue, profile="interop").outcome == "outside-profile"


def test_a_rejected_request_fails_every_profile(catalogue: Catalogue) -> None:
    rejected = Difference("request", "$.bogus", "provider-rejects", "$.bogus: rejected", "X")
    for profile in ("spec", "interop", "full"):
        decision = decide([rejected], CASE, catalogue, profile=profile)
        assert decision.outcome == "fail", profile
        assert decision.attributions[0].basis == "provider-schema"
        assert decision.unruled == []


def _record(case_id: str, status: str, differences: list[dict] | None = None, tier: str | None = None):
    from wireconf.reports.jsonl import CaseRecord

    return CaseRecord(
        "rt", "1", case_id, "wire", "openai.chat", [], status, 0.0, tier=tier, differences=differences
    )


def test_the_reports_count_representation_only_failures_under_interop_only() -> None:
    from wireconf.reports.badge import badge_message
    from wireconf.reports.matrix import build_matrix

    stream = {"path": "$.stream", "change": "unexpected-key", "rules": ["1/x"], "basis": "declared"}
    max_tokens = {"path": "$.max_tokens", "change": "value", "rules": ["1/y"], "basis": "declared"}
    records = [
        _record("a", "passed"),
        _record("b", "failed", [{**stream, "representation": "stream-default"}], "spec"),
        _record("c", "failed", [{**stream, "representation": "stream-default"}, max_tokens], "project"),
        _record("d", "failed", [], None),  # a stale waiver only: no difference, never representation
    ]
    assert [r.fails_profile("interop") for r in records] == [False, False, True, True]
    assert [r.fails_profile("full") for r in records] == [False, True, True, True]
    (rt,) = build_matrix(records).runtimes
    assert (rt.spec_conform, rt.interop_pass, rt.counts["passed"]) == (2, 2, 1)
    assert "interop profile 2/4 (50%)" in rt.profiles_text()
    assert "interop 2/4" in badge_message(rt)


# --- the same class for every api that documents it -----------------------------------------------


def _classes() -> dict[str, dict[str, Equivalence]]:
    out: dict[str, dict[str, Equivalence]] = {}
    for api in APIS.values():
        for e in api.equivalences:
            out.setdefault(e.kind, {}).setdefault(api.name, e)
    return out


def _undocumented_gaps() -> list[str]:
    """Each (class, api) where another api lists the class, this api's contract declares the same field
    (optional, and not stating another default, or admitting null for a ``null`` class), and the api
    neither lists it nor says why not (``Api.equivalence_gaps``)."""
    missing = []
    for kind, listed in sorted(_classes().items()):
        first = next(iter(listed.values()))
        paths = {e.path for e in listed.values()}
        for api in APIS.values():
            if api.name in listed or kind in api.equivalence_gaps:
                continue
            if ANY_PATH in paths:  # a rule of the provider's parser, for every field
                missing.append(f"{kind} on {api.name}")
                continue
            declared = declarations(PROVIDER_OF[api.name].name, api.name)
            optional = [d for p in paths if p in declared for d in declared[p] if not d.required]
            if not optional:
                continue  # no such field, or a required one: omitting it is no request the provider takes
            if first.test == "null" and not all(d.nullable for d in optional):
                continue  # the contract says this field may not be null
            if first.test == "default" and any(d.defaults for d in optional):
                continue  # the contract states its own default there (derived if it agrees)
            missing.append(f"{kind} on {api.name} ({sorted(paths)[0]})")
    return missing


def test_a_class_listed_for_one_api_is_listed_for_every_api_that_documents_it() -> None:
    assert _undocumented_gaps() == []


def test_the_uniformity_check_finds_a_class_missing_on_one_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the equivalence Responses lists for tool_choice, the check names it (the gap the issue
    found: Chat and Anthropic had it, Responses did not)."""
    from dataclasses import replace

    record = APIS["openai.responses"]
    without = tuple(e for e in record.equivalences if e.kind != "tool-choice-default-with-tools")
    monkeypatch.setitem(APIS, "openai.responses", replace(record, equivalences=without))
    assert any(
        m.startswith("tool-choice-default-with-tools on openai.responses") for m in _undocumented_gaps()
    )


def test_every_default_the_openai_document_states_at_the_top_of_a_request_is_an_equivalence() -> None:
    """Read from the contract document here, not from the derivation: each top-level optional field with
    a ``default`` (its own, or a union member's) is covered when sent at that default and omitted."""
    contract = load("openai")
    assert contract is not None
    defs = contract.document["$defs"]
    for api, root in contract.requests.items():
        schema = defs[root]
        parts = [
            schema,
            *(defs[m["$ref"].rsplit("/", 1)[1]] if "$ref" in m else m for m in schema.get("allOf", [])),
        ]
        parts += [
            defs[m["$ref"].rsplit("/", 1)[1]] for p in parts[1:] for m in p.get("allOf", []) if "$ref" in m
        ]
        checked = 0
        for part in parts:
            for key, field in part.get("properties", {}).items():
                found = [field, *field.get("anyOf", [])]
                stated = [f["default"] for f in found if isinstance(f, dict) and "default" in f]
                if len(stated) != 1 or stated[0] is None or key in part.get("required", []):
                    continue
                (difference,) = _diff({}, {key: stated[0]})
                assert covering(difference, equivalences_of(api), None) is not None, (api, key, stated[0])
                checked += 1
        assert checked or api == "openai.embeddings" or api == "openai.images", api


def test_two_spellings_of_one_proto_field_are_one_representation() -> None:
    found = _diff(
        {"generationConfig": {"stopSequences": ["x"], "topK": 3}},
        {"generationConfig": {"stop_sequences": ["x"], "topK": 3}},
    )
    assert {d.change for d in found} == {"missing-key", "unexpected-key"}
    named = representations(found, equivalences_of("gemini.generate_content"), None)
    assert [e.name if e else None for e in named] == ["proto3-json-spelling"] * 2
    other = _diff(
        {"generationConfig": {"stopSequences": ["x"]}}, {"generationConfig": {"stop_sequences": ["y"]}}
    )
    assert other and not any(representations(other, equivalences_of("gemini.generate_content"), None))
    assert representations(found, equivalences_of("openai.chat"), None) == [None, None]


RUNTIMES = ("ai-sdk", "luthien", "agentflow", "langchain", "litellm", "nat", "vercel", "llamaindex")
"""The runtimes the project ships adapters for (pyproject's ``wireconf.adapters``, less the reference and
prompty: that is the spec's own name, and ``kind: prompty`` a tool kind of its §7.1.3), and others."""


def _names_a_runtime(text: str) -> list[str]:
    return [r for r in RUNTIMES if re.search(rf"(?<![\w-]){re.escape(r)}(?![\w-])", text, re.IGNORECASE)]


def test_no_equivalence_or_condition_names_a_runtime() -> None:
    said = [
        (f"{api.name}:{e.name}", " ".join([e.name, e.source, e.quote, *e.when]))
        for api in APIS.values()
        for e in api.equivalences
    ]
    said += [(f"{api.name} gap {k}", v) for api in APIS.values() for k, v in api.equivalence_gaps.items()]
    catalogue = load_catalogue(CASES / "rules.yaml")
    said += [(rule_id, " ".join(g.when or ())) for rule_id, g in catalogue.governing]
    named = [(where, _names_a_runtime(text)) for where, text in said if _names_a_runtime(text)]
    assert named == []
    assert _names_a_runtime("as LiteLLM sends it") == ["litellm"]  # the check can fail


# --- an expected request the provider's contract rejects ---------------------------------------------

FLAC = CaseFacts(
    "c2",
    "wire",
    "openai.chat",
    ("1/no-other-keys",),
    {"agent": {}},
    rejected=("$.messages[0].content[0].input_audio.format",),
)


def _audio(fmt: str) -> dict[str, Any]:
    part = {"type": "input_audio", "input_audio": {"data": "x", "format": fmt}}
    return {"model": "m", "max_tokens": 4096, "messages": [{"role": "user", "content": [part]}]}


def test_a_runtime_that_sends_what_the_provider_takes_for_a_rejected_expectation_passes_interop_only(
    catalogue: Catalogue,
) -> None:
    lines = _diff(_audio("flac"), _audio("wav"))
    assert decide(lines, FLAC, catalogue, profile="full").outcome == "fail"
    decision = decide(lines, FLAC, catalogue, profile="interop")
    assert decision.outcome == "outside-profile"
    assert [a.representation for a in decision.attributions] == ["provider-rejects-expectation"]
    # without the fact, the same difference fails interop
    plain = CaseFacts("c2", "wire", "openai.chat", ("1/no-other-keys",), {"agent": {}})
    assert decide(lines, plain, catalogue, profile="interop").outcome == "fail"


def test_a_runtime_that_refuses_a_rejected_expectation_passes_interop(catalogue: Catalogue) -> None:
    raised = Difference("result", "$", "raised", "expected a request body, but the adapter raised X", "X")
    assert decide([raised], FLAC, catalogue, profile="interop").outcome == "outside-profile"
    assert decide([raised], FLAC, catalogue, profile="full").outcome == "fail"


def test_what_else_differs_still_fails_interop_beside_a_rejected_expectation(catalogue: Catalogue) -> None:
    other = _audio("wav")
    other["max_tokens"] = 64000
    decision = decide(_diff(_audio("flac"), other), FLAC, catalogue, profile="interop")
    assert decision.outcome == "fail"
    assert [a.difference.path for a in decision.attributions if not a.representation] == ["$.max_tokens"]
