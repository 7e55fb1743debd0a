"""Provider equivalences (``wireconf.providers.equivalence``) and the interop profile that reads them.

Every equivalence an api lists must cite a source that exists: an API reference URL, or an SDK type and
field that the installed SDK has. The matching is tested on hand-made differences (and on differences
the comparison itself finds), and the verdict under each profile on a small catalogue."""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path
from typing import Any

import pytest

from wireconf.compare import differences
from wireconf.corpus.rules import Catalogue, load_catalogue
from wireconf.differences import Difference
from wireconf.judging.decision import CaseFacts, decide
from wireconf.providers.equivalence import Equivalence, covering
from wireconf.providers.registry import APIS, equivalences_of

EVERY = [(api.name, e) for api in APIS.values() for e in api.equivalences]


def _sdk_member(source: str) -> Any:
    """The installed SDK object a source names (``openai (3.57) openai.types.chat.X.field``), or raise."""
    dotted = source.split(") ", 1)[1].split(" ", 1)[0]
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for name in parts[split:]:
            if hasattr(obj, name):
                obj = getattr(obj, name)
            else:  # a TypedDict's field
                annotations = getattr(obj, "__annotations__", {})
                assert name in annotations, f"{dotted}: {obj!r} has no field {name}"
                obj = annotations[name]
        return obj
    raise AssertionError(f"{dotted}: no such module")


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
    assert ") " in source, f"{api} {equivalence.name}: {source!r} is neither a URL nor an SDK type"
    _sdk_member(source)


def test_names_are_unique_per_api() -> None:
    for api in APIS.values():
        names = [e.name for e in api.equivalences]
        assert len(names) == len(set(names)), api.name


def test_the_source_check_fails_on_a_type_the_sdk_lacks() -> None:
    with pytest.raises(AssertionError):
        _sdk_member("openai (3.57) openai.types.chat.completion_create_params.CompletionCreateParamsBase.no")


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
        ("gemini.generate_content", {}, {"safetySettings": []}, None, "safety-settings-empty"),
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
