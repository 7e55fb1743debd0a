"""The ``when:`` of a rule's ``governs`` reads the case's input, and nothing else (``wireconf lint``).

A condition decides which rule a difference breaks from what the case sets up (the agent sets
``maxOutputTokens``, a message has an image part): never from what the runtime did (a difference
would then be charged to whatever rule the runtime's output happens to satisfy), nor from what the
case expects or how it is named. A condition's first key must be one of the fields that hold the
input of a kind the declaration applies to (``CaseBase.input_fields``: ``agent``, ``messages``,
``response``, ...; not ``expect``, ``expect_request``, ``rules``, ``id``). The same holds for the
conditions of the providers' equivalences, which read the same case.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from wireconf.core.conditions import ConditionError, parse_condition
from wireconf.core.yaml_source import YamlSyntaxError, line_of, load_yaml_file


def not_input(text: str, fields: frozenset[str]) -> str | None:
    """Why the condition ``text`` reads something other than a case's input (one of ``fields``), or
    ``None``."""
    try:
        field = parse_condition(text).steps[0]
    except ConditionError:
        return None  # the catalogue reports a condition it cannot read, with its line
    if field in fields:
        return None
    known = ", ".join(sorted(fields)) or "none"
    return (
        f"condition {text!r} reads `{field}`, which is not the case's input: a condition reads only what "
        f"the case sets up (its input fields: {known}), never what it expects or what the runtime did"
    )


def condition_problems(rules_file: Path, input_fields: Mapping[str, frozenset[str]]) -> list[str]:
    """Every ``when`` condition of ``rules_file`` that reads something other than the input of the kinds
    its declaration applies to (``input_fields``: kind → its input fields), with its line."""
    try:
        raw = load_yaml_file(rules_file)
    except YamlSyntaxError:
        return []  # the catalogue's own problem, reported with it
    problems = []
    for loc, kinds, text in _conditions(raw):
        fields = frozenset().union(*(input_fields.get(kind, frozenset()) for kind in kinds or input_fields))
        why = not_input(text, fields)
        if why is not None:
            problems.append(f"{rules_file}:{line_of(raw, loc)}: {why}")
    return problems


def _conditions(raw: Any) -> Iterator[tuple[list[Any], list[str] | None, str]]:
    """Each ``when`` condition of the catalogue: where it stands, the kinds of its declaration."""
    rules = raw.get("rules") if isinstance(raw, dict) else None
    for index, rule in enumerate(rules if isinstance(rules, list) else []):
        governs = rule.get("governs") if isinstance(rule, dict) else None
        for place, declaration in enumerate(governs if isinstance(governs, list) else []):
            if not isinstance(declaration, dict):
                continue
            when, kinds = declaration.get("when"), declaration.get("kinds")
            kinds = [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else None
            for text in [when] if isinstance(when, str) else when if isinstance(when, list) else []:
                if isinstance(text, str):
                    yield ["rules", index, "governs", place, "when"], kinds, text


def equivalence_problems(
    equivalences: Mapping[str, list[tuple[str, tuple[str, ...]]]], input_fields: Mapping[str, frozenset[str]]
) -> list[str]:
    """Every condition of a provider equivalence (``api`` → ``(name, when)`` pairs) that reads something
    other than a case's input (of any kind: an equivalence holds for every kind of its api)."""
    fields = frozenset().union(*input_fields.values())
    return [
        f"provider equivalence {name!r} of {api}: {why}"
        for api, listed in equivalences.items()
        for name, when in listed
        for text in when
        if (why := not_input(text, fields)) is not None
    ]
