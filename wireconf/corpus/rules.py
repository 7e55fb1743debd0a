"""The rule catalogue (``cases/rules.yaml``): every normative sentence the corpus checks.

A rule has a stable id ``<section>/<slug>``, a level, its source (seed file and section), a one-line
statement and, where the spec's words are quoted, the quote. Its ``basis`` says where it comes from, and
so its tier (``Rule.tier``), which reports show apart because a runtime is judged on the spec first:

- ``spec``: the spec's text (``basis: text``) or the observable behaviour of its pseudocode
  (``basis: pseudocode``);
- ``vectors``: Prompty's upstream conformance vectors, written by the spec's authors, decide where the
  text is silent or says otherwise (``basis: vectors``, naming the vectors in ``vectors``);
- ``project``: the project's decision where the spec is silent, ambiguous or contradicts itself
  (``basis: decision``); a decision never contradicts the spec's text.

Both non-spec tiers say in ``gap`` why the text does not decide them (``Gap``) and in ``decision`` why
the rule says what it says.

A rule may declare the differences it ``governs`` (``Governs``): where in what a case compares (the
request body, the result, ...) and which kind of difference breaks it. A failing case then names the
rule its diff breaks even when the case does not cite it (an unexpected top-level key breaks
``7.1.7/no-other-keys`` whatever the case is about): ``wireconf.judging.attribution``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from wireconf.core.conditions import Condition, parse_condition
from wireconf.core.untyped import YAML
from wireconf.core.yaml_source import YamlSyntaxError, line_of, load_yaml_file, unicode_problem

RULES_FILE = "rules.yaml"

VERSION_PATTERN = re.compile(r"^\d+\.\d+\.\d+$")
"""``corpus.version`` in ``rules.yaml``: MAJOR.MINOR.PATCH (bumped by the rule in docs/ci.md)."""

Level = Literal["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]
Basis = Literal["text", "pseudocode", "vectors", "decision"]
Tier = Literal["spec", "vectors", "project"]

TIERS: tuple[Tier, ...] = ("spec", "vectors", "project")
"""From the most to the least authoritative source."""

Gap = Literal["silent", "ambiguous", "conflicting", "overruled"]
"""Why the spec's text does not decide a rule of tier vectors or project: it says nothing that decides the
case (silent), its words admit more than one reading (ambiguous), two of its statements disagree, prose
and pseudocode or two sections (conflicting), or it says otherwise and the spec authors' vectors overrule
it (overruled: tier vectors only, since a project decision never contradicts the spec's text)."""

TIER_OF_BASIS: dict[str, Tier] = {
    "text": "spec",
    "pseudocode": "spec",
    "vectors": "vectors",
    "decision": "project",
}


class Source(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: str = Field(description="File name under shared/seeds, or 'project' for the project's own rules")
    section: str


class Edit(BaseModel):
    """One textual edit of the reference implementation: ``find`` (occurring exactly once) → ``replace``."""

    model_config = ConfigDict(extra="forbid")

    file: str = Field(
        description="Path from the repository root, e.g. wireconf/reference_impl/openai_chat/messages.py"
    )
    find: str
    replace: str


_WILDCARDS = {"**": r".*", "[*]": r"\[\d+\]", ".*": r"\.[^.\[]+"}
_WILDCARD = re.compile("|".join(re.escape(w) for w in _WILDCARDS))


def path_pattern(path: str) -> re.Pattern[str]:
    """The regular expression of a diff path with wildcards: ``[*]`` any index, ``.*`` any one key,
    ``**`` anything further."""
    parts = _WILDCARD.split(path)
    regex = re.escape(parts[0])
    for wildcard, literal in zip(_WILDCARD.findall(path), parts[1:], strict=True):
        regex += _WILDCARDS[wildcard] + re.escape(literal)
    return re.compile(regex)


class Governs(BaseModel):
    """A difference that breaks the rule: at ``path`` of the ``subject``, of one of the ``change`` kinds.

    ``path`` is a path as diffs print it (``$.messages[0].content``) where ``[*]`` stands for any array
    index, ``.*`` for any one key and ``**`` for anything further (``$.tools**``: the key and everything
    under it). ``change`` lists the kinds of difference (``wireconf.core.differences.CHANGES``; all
    when absent), ``shape`` the types of a type change (``string → array``: a string was expected),
    ``empty`` whether the value of a key one side lacks is empty. ``apis`` and ``kinds`` narrow it to
    the cases of those apis and kinds, ``when`` to the cases whose input sets up what it is about.

    A declaration is about a place, never about what a runtime happens to send: an option's rule
    declares its own key (``$.generationConfig.stopSequences``, and the misspellings its text names),
    not every key of the object it shares with the others; the object's keys belong to the rule that
    says which keys it holds (``wireconf.judging.attribution`` ranks the declarations).
    """

    model_config = ConfigDict(extra="forbid")

    subject: Literal["request", "result", "yielded-before-error", "spans"] = Field(
        description="What the difference is in: the request body (wire, e2e), the result, the items a "
        "stream yielded before its expected exception, or a trace case's spans"
    )
    path: str = Field(
        pattern=r"^\$", description="A diff path; [*] any index, .* any key, ** anything further"
    )
    change: list[str] | None = Field(default=None, description="Kinds of difference; all when absent")
    shape: str | None = Field(
        default=None, description="For a type change, the JSON types it goes between: `string → array`"
    )
    apis: list[str] | None = None
    kinds: list[str] | None = None
    if_cited: bool = Field(
        default=False,
        description="Only in the cases that cite the rule (where they set up what it is about: "
        "`$.max_tokens` breaks 7.1.5/max-completion-tokens only where maxOutputTokens is given)",
    )
    variants: list[str] | None = Field(
        default=None,
        description="Only differences of these adapter methods where a case judges several "
        "(`process_async` beside `process`)",
    )
    when: list[str] | None = Field(
        default=None,
        description="Conditions on the case's input that must all hold (wireconf.core.conditions): "
        "`agent.model.options.maxOutputTokens` present, `!path` absent, `path=value` equal",
    )
    empty: bool | None = Field(
        default=None,
        description="For a key or item one side lacks: only where the value the other side holds is "
        "empty (`{}`, `[]`: a rule that a key is omitted rather than sent empty), or, false, only where "
        "it is not",
    )

    @field_validator("change", "apis", "kinds", "variants", "when", mode="before")
    @classmethod
    def _one_or_several(cls, value: YAML) -> YAML:
        return [value] if isinstance(value, str) else value

    @field_validator("change")
    @classmethod
    def _known_changes(cls, value: list[str] | None) -> list[str] | None:
        from wireconf.core.differences import CHANGES

        unknown = [c for c in value or [] if c not in CHANGES]
        if unknown:
            raise ValueError(f"unknown change(s) {unknown} (known: {', '.join(CHANGES)})")
        return value

    @field_validator("when")
    @classmethod
    def _conditions_parse(cls, value: list[str] | None) -> list[str] | None:
        for text in value or []:
            parse_condition(text)  # ValueError names the condition and what is wrong
        return value

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return path_pattern(self.path)

    @cached_property
    def conditions(self) -> tuple[Condition, ...]:
        return tuple(parse_condition(text) for text in self.when or [])

    @cached_property
    def _place(self) -> re.Pattern[str] | None:
        """The pattern of the place itself when the path ends in ``**`` (what is under it aside)."""
        return path_pattern(self.path[:-2]) if self.path.endswith("**") else None

    def names(self, path: str) -> bool:
        """Whether the declaration names the place ``path`` itself, not only a value that holds it
        (``$.tools**`` names ``$.tools``, and only holds ``$.tools[0].name``)."""
        return self._place is None or self._place.fullmatch(path) is not None

    @property
    def path_specificity(self) -> int:
        """How much of the path the declaration names: its literal characters (``$.stream`` beats
        ``$.*``, ``$.generationConfig.stop`` beats ``$.generationConfig.*``)."""
        return len(_WILDCARD.sub("", self.path))

    def holds(self, value: Any) -> bool:
        """Whether the value of the key or item one side lacks is what ``empty`` asks for."""
        return self.empty is None or self.empty == (value in ({}, []) and isinstance(value, dict | list))

    def applies_to(self, case: Mapping[str, Any]) -> bool:
        """Whether the case (as written) sets up what the declaration is about (``when``)."""
        return all(condition.holds(case) for condition in self.conditions)


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[0-9a-z][0-9a-z.]*/[a-z0-9][a-z0-9-]*$")
    level: Level
    basis: Basis = Field(
        description="text: a sentence of the spec; pseudocode: observable behaviour of its algorithm; "
        "vectors: Prompty's upstream conformance vectors decide (named in `vectors`); "
        "decision: the project's choice where the spec is silent, ambiguous or contradicts itself"
    )
    source: Source
    statement: str
    quote: str | None = None
    vectors: list[str] | None = Field(
        default=None,
        description="Names of Prompty's upstream conformance vectors (cases imported by "
        "`wireconf import-vectors`) that decide this rule (basis: vectors), or that a decision departs "
        "from (its `decision` says why)",
    )
    gap: Gap | None = Field(
        default=None,
        description="Why the spec's text does not decide this rule (basis: vectors or decision): silent, "
        "ambiguous, conflicting, or overruled (by the vectors; basis: vectors only)",
    )
    decision: str | None = Field(
        default=None,
        description="Why the rule says so where the spec's text does not (basis: vectors or decision)",
    )
    provider_rejects: str | None = Field(
        default=None,
        description="Where the request this rule makes the spec build is one the provider's pinned contract "
        "rejects (wireconf.providers.contract): which schema, which field, and why. A finding "
        "about the spec, listed on the findings page; a runtime is never charged with it",
    )
    provider_equivalent: str | None = Field(
        default=None,
        description="Where a deviation from this rule (its mutant's) is one the provider reads as the same "
        "request (a provider equivalence of wireconf.providers covers it): which equivalence, and why the "
        "rule stands. `wireconf strength --profile interop` counts such a mutant apart only when its rule "
        "says so here",
    )
    mutant: list[Edit] | None = Field(
        default=None,
        description="Edits of the reference implementation that break this rule only (wireconf strength)",
    )
    governs: list[Governs] | None = Field(
        default=None,
        description="The differences that break this rule, in any case (not only those citing it); "
        "a rule that declares them is named only for those differences",
    )

    @field_validator("mutant", mode="before")
    @classmethod
    def _one_edit_or_several(cls, value: YAML) -> YAML:
        return [value] if isinstance(value, dict) else value

    @model_validator(mode="after")
    def _decisions_say_why(self) -> Rule:
        if self.tier == "spec":
            if self.decision or self.vectors or self.gap:
                raise ValueError(
                    f"a rule of basis {self.basis} is the spec's own: it has no `decision`, `gap` or "
                    "`vectors` (use basis: vectors or decision where the spec's text does not say so)"
                )
            return self
        if not self.decision:
            raise ValueError(f"a rule of basis {self.basis} must say why in `decision`")
        if self.gap is None:
            raise ValueError(
                f"a rule of basis {self.basis} says in `gap` why the spec's text does not decide it "
                "(silent, ambiguous, conflicting, overruled)"
            )
        if self.basis == "vectors" and not self.vectors:
            raise ValueError("a rule of basis vectors names the vectors that decide it in `vectors`")
        if self.basis == "decision" and self.gap == "overruled":
            raise ValueError(
                "a project decision never contradicts the spec's text (gap: overruled); only the spec "
                "authors' vectors can (basis: vectors)"
            )
        return self

    @property
    def tier(self) -> Tier:
        """``spec``, ``vectors`` or ``project``: where the rule comes from (see the module docstring)."""
        return TIER_OF_BASIS[self.basis]

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
    version: str | None = None
    """The corpus's declared version (``corpus: {version: ...}``); ``None`` for a corpus without one."""
    unread: bool = False
    """The file could not be read as a catalogue (not UTF-8, not YAML, no ``rules:`` list): its one
    problem says why, and no case's citations can be checked against it."""

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.rules

    def sections(self) -> list[str]:
        return sorted({r.section for r in self.rules.values()}, key=_section_key)

    @cached_property
    def governing(self) -> list[tuple[str, Governs]]:
        """Every declared ``governs`` entry with its rule id."""
        return [(rule.id, g) for rule in self.rules.values() for g in rule.governs or []]


def _section_key(section: str) -> tuple[Any, ...]:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in section.split("."))


def load_catalogue(path: Path, load: Callable[[Path], Any] = load_yaml_file) -> Catalogue:
    """Load ``rules.yaml`` (parsed by ``load``: the corpus passes its cache of parsed files); problems
    are collected (with lines), never raised."""
    try:
        raw = load(path)
    except YamlSyntaxError as exc:
        cause = exc.__cause__  # whichever loader read it, a file that is not UTF-8 is said so
        said = unicode_problem(cause) if isinstance(cause, UnicodeDecodeError) else exc.described()
        return Catalogue(path, {}, [CatalogueProblem(path, exc.line, said)], unread=True)
    if not isinstance(raw, dict) or not isinstance(raw.get("rules"), list):
        problem = CatalogueProblem(path, 1, "expected a mapping with a `rules:` list")
        return Catalogue(path, {}, [problem], unread=True)
    rules: dict[str, Rule] = {}
    problems: list[CatalogueProblem] = []
    extra = {
        k for k in raw if k not in ("rules", "corpus") and not (isinstance(k, str) and k.startswith("x-"))
    }
    if extra:
        problems.append(CatalogueProblem(path, 1, f"unknown top-level keys: {sorted(extra)}"))
    version = _corpus_version(raw, path, problems)
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
    return Catalogue(path, rules, problems, version)


def _corpus_version(raw: dict[str, Any], path: Path, problems: list[CatalogueProblem]) -> str | None:
    """``corpus: {version: X.Y.Z}``, optional; a malformed one is a problem with its line."""
    if "corpus" not in raw:
        return None
    block = raw["corpus"]
    line = line_of(raw, ["corpus"])
    if not isinstance(block, dict) or set(block) != {"version"}:
        problems.append(CatalogueProblem(path, line, "corpus: expected a mapping with `version` only"))
        return None
    version = block["version"]
    if not isinstance(version, str) or not VERSION_PATTERN.match(version):
        problems.append(
            CatalogueProblem(
                path,
                line_of(raw, ["corpus", "version"]),
                f"corpus.version: expected MAJOR.MINOR.PATCH, got {version!r}",
            )
        )
        return None
    return version


def uncovered(catalogue: Catalogue, cited: Iterable[str]) -> list[str]:
    """Rule ids that no case cites."""
    seen = set(cited)
    return [rule_id for rule_id in catalogue.rules if rule_id not in seen]
