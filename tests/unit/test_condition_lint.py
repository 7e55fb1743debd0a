"""``wireconf lint`` refuses a ``when:`` that reads anything but the case's input (issue 32, item 2).

A condition decides which rule a difference breaks; read from the expectation, the case's name or
what the runtime did, it would charge a difference to whatever rule happens to hold."""

from __future__ import annotations

from pathlib import Path

from wireconf.corpus.conditions import condition_problems, equivalence_problems
from wireconf.kinds.registry import INPUT_FIELDS

RULE = """\
rules:
  - id: 1/a
    level: MUST
    basis: text
    source: {{seed: s.md, section: '1'}}
    statement: s
    governs: [{{subject: request, path: '$.x', {extra}when: [{when}]}}]
"""


def _problems(tmp_path: Path, when: str, extra: str = "") -> list[str]:
    rules = tmp_path / "rules.yaml"
    rules.write_text(RULE.format(when=when, extra=extra))
    return condition_problems(rules, INPUT_FIELDS)


def test_a_condition_on_the_cases_input_is_accepted(tmp_path: Path) -> None:
    assert _problems(tmp_path, "agent.model.options.temperature") == []
    assert _problems(tmp_path, "'!messages[*].content[*].mediaType'") == []
    assert _problems(tmp_path, "'response.events[*].choices[*].index=1'") == []


def test_a_condition_on_the_expectation_or_the_cases_name_is_refused(tmp_path: Path) -> None:
    for when in ("expect.generationConfig", "'expect_request.model=m'", "'rules[*]=1/a'", "id", "tolerance"):
        (problem,) = _problems(tmp_path, when)
        assert problem.startswith(f"{tmp_path / 'rules.yaml'}:7: ") and "not the case's input" in problem


def test_a_condition_is_read_against_the_input_of_the_kinds_it_applies_to(tmp_path: Path) -> None:
    # a wire case has no recorded response: a condition on one would only ever read nothing
    (problem,) = _problems(tmp_path, "response.body.choices", "kinds: [wire], ")
    assert "`response`" in problem and "agent, messages, registry" in problem
    assert _problems(tmp_path, "response.body.choices", "kinds: [process], ") == []


def test_an_equivalence_condition_is_held_to_the_same(tmp_path: Path) -> None:
    listed = {"openai.chat": [("tool-choice-auto", ("agent.tools",)), ("odd", ("expect.tool_choice",))]}
    (problem,) = equivalence_problems(listed, INPUT_FIELDS)
    assert problem.startswith("provider equivalence 'odd' of openai.chat:")


def test_every_condition_of_the_catalogue_reads_the_cases_input() -> None:
    from tests.conftest import CASES

    assert condition_problems(CASES / "rules.yaml", INPUT_FIELDS) == []
