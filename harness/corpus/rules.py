"""The rule catalogue (``cases/rules.yaml``): every normative sentence the corpus checks.

A rule has a stable id ``<section>/<slug>``, a level, its source (seed file and section), a one-line
statement and, where the spec's words are quoted, the quote. Rules the project had to decide (the spec
is silent, ambiguous, or its pseudocode and prose disagree) carry ``origin: project`` and the reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from harness.corpus.yaml_source import YamlSyntaxError, line_of, load_yaml_file

RULES_FILE = "rules.yaml"

Level = Literal["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]


class Source(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: str = Field(description="File name under shared/seeds, or 'project' for the project's own rules")
    section: str


class Edit(BaseModel):
    """One textual edit of the reference implementation: ``find`` (occurring exactly once) → ``replace``."""

    model_config = ConfigDict(extra="forbid")

    file: str = Field(
        description="Path from the repository root, e.g. reference_impl/openai_chat/messages.py"
    )
    find: str
    replace: str


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[0-9a-z][0-9a-z.]*/[a-z0-9][a-z0-9-]*$")
    level: Level
    basis: Literal["text", "pseudocode", "decision"] = Field(
        description="text: a sentence of the spec; pseudocode: observable behaviour of its algorithm; "
        "decision: the project's choice where the spec is silent or contradicts itself"
    )
    source: Source
    statement: str
    quote: str | None = None
    origin: Literal["spec", "project"] = "spec"
    decision: str | None = Field(default=None, description="Why the project decided so (origin: project)")
    mutant: list[Edit] | None = Field(
        default=None,
        description="Edits of the reference implementation that break this rule only (wireconf strength)",
    )

    @field_validator("mutant", mode="before")
    @classmethod
    def _one_edit_or_several(cls, value: Any) -> Any:
        return [value] if isinstance(value, dict) else value

    @model_validator(mode="after")
    def _decisions_say_why(self) -> Rule:
        if (self.origin == "project") != (self.basis == "decision"):
            raise ValueError("basis: decision and origin: project go together")
        if self.origin == "project" and not self.decision:
            raise ValueError("a project decision must say why in `decision`")
        return self

    @property
    def section(self) -> str:
        return self.id.split("/", 1)[0]


class CatalogueFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[Rule]


@dataclass(frozen=True)
class CatalogueProblem:
    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass
class Catalogue:
    path: Path
    rules: dict[str, Rule]
    problems: list[CatalogueProblem]

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.rules

    def sections(self) -> list[str]:
        return sorted({r.section for r in self.rules.values()}, key=_section_key)


def _section_key(section: str) -> tuple[Any, ...]:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in section.split("."))


def load_catalogue(path: Path) -> Catalogue:
    """Load ``rules.yaml``; problems are collected (with lines), never raised."""
    try:
        raw = load_yaml_file(path)
    except YamlSyntaxError as exc:
        return Catalogue(path, {}, [CatalogueProblem(path, exc.line, exc.described())])
    if not isinstance(raw, dict) or not isinstance(raw.get("rules"), list):
        return Catalogue(path, {}, [CatalogueProblem(path, 1, "expected a mapping with a `rules:` list")])
    rules: dict[str, Rule] = {}
    problems: list[CatalogueProblem] = []
    extra = {k for k in raw if k != "rules" and not (isinstance(k, str) and k.startswith("x-"))}
    if extra:
        problems.append(CatalogueProblem(path, 1, f"unknown top-level keys: {sorted(extra)}"))
    for index, entry in enumerate(raw["rules"]):
        try:
            rule = Rule.model_validate(entry)
        except ValidationError as exc:
            for err in exc.errors():
                where = ".".join(str(p) for p in err["loc"]) or "rule"
                line = line_of(raw, ["rules", index, *err["loc"]])
                problems.append(CatalogueProblem(path, line, f"rules[{index}].{where}: {err['msg']}"))
            continue
        if rule.id in rules:
            problems.append(
                CatalogueProblem(path, line_of(raw, ["rules", index]), f"duplicate rule id {rule.id!r}")
            )
            continue
        rules[rule.id] = rule
    return Catalogue(path, rules, problems)


def uncovered(catalogue: Catalogue, cited: Iterable[str]) -> list[str]:
    """Rule ids that no case cites."""
    seen = set(cited)
    return [rule_id for rule_id in catalogue.rules if rule_id not in seen]
