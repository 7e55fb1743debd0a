"""The rule each difference of a failing case breaks, and so the failure's tier.

A case cites the rules it was written to check, but a runtime can deviate anywhere in what the case
compares: an unexpected top-level ``stream`` key in a case about message content breaks
``7.1.7/no-other-keys``, which that case does not cite. Every rule declares the differences it governs
(``governs`` in ``cases/rules.yaml``: subject, path, kinds of change, apis and kinds, and the conditions
on the case's input under which it applies). A difference is charged by its path, never by the
shape of what a runtime sent:

1. **Declared.** The rules whose declarations match the difference and apply to the case (``when``, a
   condition on the case's input; a declaration marked ``if_cited`` only in the cases that cite its
   rule), the most specific first: a declaration that names the adapter method (``process_async``),
   then one that names the place itself rather than a whole value holding it (``$**.enum[*]`` before
   ``$**.enum**`` for an item of an enum), then the one whose path names more
   (``$.generationConfig.stop`` before ``$.generationConfig.*``, ``$.max_tokens`` before ``$.*``),
   then a rule the case cites, then one with more conditions, then one that names the kind of change.
   So an extra key under a shared object (``generationConfig``) goes to the rule that governs that
   object's keys (``7.9.7/no-other-keys``), whatever option rule the case cites or sets up: an option
   rule governs its own key's path.
2. **By content, by the value that holds it.** The diff is at the finest path where the two sides
   differ (``wireconf.cassettes.compare``). A key or item missing whose expected value is an object or array,
   that no declaration governs as a whole, is charged by what it holds: each of its keys and items
   missing in turn, at their own paths (``generationConfig`` missing with ``temperature`` in it breaks
   ``7.9.5/temperature``). A difference no declaration governs at its own path is a difference of the
   value that holds it: charged to the rules that govern the nearest enclosing object or array as a
   changed value (a rule about a whole content part governs a key of it: an ``inlineData`` sent where
   the part should hold ``fileData`` breaks the rule about that part). Only then is an unexpected
   object or array charged by what it holds.
3. **A raise where a result was expected** (change ``raised``; the difference holds the expected value
   and the subject it describes, the request body of a wire case), and no request where one was
   expected (change ``requests`` holding the expected request: an e2e runtime that raised before it
   sent anything), breaks the rules that require that result: the rules whose declarations name the
   raise itself, as in 1 (a rule whose text says the input causes no error,
   ``7.9.5/fields-without-a-row-ignored``, or that an input the case holds is sent a certain way,
   ``7.1.7/messages-in-order`` where the case has no message); else every rule the case cites that
   governs some place of the expected value (the value itself, any of its keys or items, absent or not
   that value): what the case's expectation exercises; else the rules that govern the expected value
   as a whole, else those of its places, each place charged as in 1 and 2.
   A raise is never unruled while some rule governs what the case expects.

   A variant of the adapter method (``process_async``) is charged to the rules about variants only
   where it deviates from the method: a difference it shares word for word with the method's is the
   method's, charged as the method's is.

   A value of another type that no declaration governs as such is read as what it leaves out: a
   ``null`` where the expectation has a value is that key missing (and the reverse, an unexpected
   key); an object or array not sent as one is each of its members missing (``_as_absent``).
4. Else the difference is *unruled*: no rule requires what the expectation says there. The case still
   fails (the comparison stays exact), but the failure names no rule and takes no tier: it is a defect of
   the corpus (a rule's declaration is missing, or the expectation asks for more than any rule does),
   never a claim against the runtime.

A failure's tier is the most authoritative tier among the rules its differences break; a rule the case
only cites never raises it.

Two more facts travel with each attribution. A difference the api's provider treats as the same request
(``wireconf.providers.equivalence``) names that equivalence (``representation``): ``--profile interop``
does not fail on it. A request the provider's pinned contract rejects (change ``provider-rejects``,
``wireconf.judging.schema_check``) breaks no rule of the catalogue and is not unruled either: its basis
is ``provider-schema``, and it fails in every profile.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from wireconf.core.differences import Difference
from wireconf.core.untyped import JSON
from wireconf.corpus.rules import TIERS, Catalogue, Governs, Tier

DECLARED = "declared"
UNRULED = "unruled"
PROVIDER_SCHEMA = "provider-schema"


@dataclass(frozen=True)
class Attribution:
    difference: Difference
    rules: tuple[str, ...]
    basis: str  # DECLARED, UNRULED or PROVIDER_SCHEMA
    tier: Tier | None  # the most authoritative tier among ``rules``; None when unruled
    api: str = ""
    representation: str = ""
    """The provider equivalence that covers the difference (``""``: none): a difference the provider
    reads as the same request, which ``--profile interop`` does not fail on."""

    def to_data(self) -> dict[str, Any]:
        d = self.difference
        data: dict[str, Any] = {
            "subject": d.subject,
            "path": d.path,
            "change": d.change,
            "text": d.text,
            "signature": d.signature,
            "rules": list(self.rules),
            "basis": self.basis,
            "tier": self.tier,
            "api": self.api,
        }
        if d.variant:
            data["variant"] = d.variant
        if d.constraint is not None:
            place, reason, shape = d.constraint
            data["constraint"] = {"path": place, "reason": reason, "shape": shape}
        if self.representation:
            data["representation"] = self.representation
        return data


def most_authoritative(tiers: list[Tier | None]) -> Tier | None:
    known = [t for t in tiers if t is not None]
    return min(known, key=TIERS.index) if known else None


def _tier(rule_ids: tuple[str, ...], catalogue: Catalogue) -> Tier | None:
    return most_authoritative([catalogue.rules[r].tier for r in rule_ids if r in catalogue.rules])


def attribute_one(
    difference: Difference,
    kind: str,
    api: str,
    cited: list[str],
    catalogue: Catalogue,
    case: Mapping[str, Any] | None = None,
    equivalence: str | None = None,
) -> Attribution:
    """The rules ``difference`` breaks in a case of ``kind`` and ``api`` that cites ``cited`` and is
    written as ``case`` (for the declarations' ``when``; ``None`` when the case is not at hand: a
    conditional declaration then never applies). ``equivalence``: the provider equivalence found for it
    among the case's other differences (``representations``); ``None``: look for one on its own."""
    scope = _Scope(kind, api, frozenset(cited), catalogue, case, difference.variant)
    return _attributed(difference, scope, equivalence)


def _attributed(difference: Difference, scope: _Scope, equivalence: str | None = None) -> Attribution:
    from wireconf.providers.equivalence import covering
    from wireconf.providers.registry import equivalences_of

    api, catalogue = scope.api, scope.catalogue
    if difference.change == "provider-rejects":
        return Attribution(difference, (), PROVIDER_SCHEMA, None, api)
    if equivalence is None:
        found = covering(difference, equivalences_of(api), scope.case)
        equivalence = found.name if found is not None else ""
    representation = equivalence
    if difference.change == "raised" or (difference.change == "requests" and difference.expected is not None):
        rules = _required(scope, difference)
    else:
        held = difference.expected if _CONTAINED.get(difference.change) == "expected" else difference.actual
        rules = _declared(
            scope, difference.subject, difference.path, difference.change, difference.shape, held
        )
        missing = _CONTAINED.get(difference.change) == "expected"
        if not rules and missing:  # what the expectation holds there is what the rules require
            rules = _by_content(scope, difference)
        if not rules:
            rules = _by_ancestor(scope, difference.subject, difference.path)
        if not rules and difference.change in _CONTAINED and not missing:
            rules = _by_content(scope, difference)
        if not rules and difference.change in ("type", "value"):
            rules = _as_absent(scope, difference)
    if not rules:
        return Attribution(difference, (), UNRULED, None, api, representation)
    return Attribution(difference, rules, DECLARED, _tier(rules, catalogue), api, representation)


@dataclass(frozen=True)
class _Scope:
    """What every declaration is matched against besides the difference: the case."""

    kind: str
    api: str
    cited: frozenset[str]
    catalogue: Catalogue
    case: Mapping[str, Any] | None
    variant: str | None

    @cached_property
    def applicable(self) -> dict[tuple[str, str], list[tuple[str, Governs]]]:
        """The declarations that apply to this case, by subject and kind of change (``""``: any)."""
        found: dict[tuple[str, str], list[tuple[str, Governs]]] = {}
        for rule_id, g in self.catalogue.governing:
            if (
                (g.apis is None or self.api in g.apis)
                and (g.kinds is None or self.kind in g.kinds)
                and (g.variants is None or self.variant in g.variants)
                and (rule_id in self.cited or not g.if_cited)
                and (not g.when or (self.case is not None and g.applies_to(self.case)))
            ):
                for change in g.change or [""]:
                    found.setdefault((g.subject, change), []).append((rule_id, g))
        return found

    def declarations(
        self, subject: str, path: str, change: str, shape: str | None, value: JSON = None
    ) -> list[tuple[str, Governs]]:
        """The declarations that govern this difference in this case (``shape`` ``None``: any;
        ``value``: what the side that has it holds, for a key or item the other side lacks)."""
        return [
            (rule_id, g)
            for key in ((subject, change), (subject, ""))
            for rule_id, g in self.applicable.get(key, ())
            if (shape is None or g.shape is None or shape == g.shape)
            and (g.empty is None or change not in _CONTAINED or g.holds(value))
            and g.pattern.fullmatch(path) is not None
        ]


def _declared(
    scope: _Scope, subject: str, path: str, change: str, shape: str, value: JSON = None
) -> tuple[str, ...]:
    """The most specific of the rules whose declarations govern the difference (``_most_specific``)."""
    return _most_specific(scope, path, scope.declarations(subject, path, change, shape, value))


def _most_specific(scope: _Scope, path: str, declarations: list[tuple[str, Governs]]) -> tuple[str, ...]:
    """The rules whose declarations govern the difference, the most specific first: the declaration
    that names the adapter method, then one that names the place itself rather than a value holding it
    (``$**.enum[*]`` before ``$**.enum**`` for an item of an enum), then the one whose path names more
    (``$.generationConfig.stop`` before ``$.generationConfig.*``), then a rule the case cites, then the
    one with more conditions on the case's input, then the one that names the kind of change."""
    ranked = [
        (
            (
                g.variants is not None,
                g.names(path),
                g.path_specificity,
                rule_id in scope.cited,
                len(g.when or []),
                bool(g.change),
            ),
            rule_id,
        )
        for rule_id, g in declarations
    ]
    if not ranked:
        return ()
    best = max(rank for rank, _ in ranked)
    return tuple(dict.fromkeys(rule_id for rank, rule_id in ranked if rank == best))


_CONTAINED = {
    "missing-key": "expected",
    "missing-item": "expected",
    "unexpected-key": "actual",
    "unexpected-item": "actual",
}
"""A key or an item one side lacks, and the side that holds its value."""


def _as_absent(scope: _Scope, difference: Difference) -> tuple[str, ...]:
    """A value of another type where no declaration governs the change: a ``null`` where the
    expectation has a value is that value missing (and a value where it has ``null``, an unexpected
    one); an object or array the runtime did not send as one (``input: "Hi"`` where an array of items is
    expected) has none of its members as the expectation writes them, each missing in its turn."""
    subject, path = difference.subject, difference.path
    expected, actual = difference.expected, difference.actual
    if actual is None and expected is not None:
        rules = _declared(scope, subject, path, "missing-key", "", expected)
        return rules or _governed_within(scope, subject, path, expected, "missing-key", "missing-item")
    if expected is None and actual is not None:
        return _declared(scope, subject, path, "unexpected-key", "", actual)
    if difference.change == "type" and isinstance(expected, dict | list) and expected:
        return _governed_within(scope, subject, path, expected, "missing-key", "missing-item")
    return ()


def _by_content(scope: _Scope, difference: Difference) -> tuple[str, ...]:
    """A missing or unexpected object or array no declaration governs as a whole is charged by what it
    holds: each of its keys (items) missing or unexpected in its turn (``generationConfig`` missing
    with ``temperature`` in it breaks the rule about ``generationConfig.temperature``)."""
    side = _CONTAINED[difference.change]
    value = difference.expected if side == "expected" else difference.actual
    key_change, item_change = (
        ("missing-key", "missing-item") if side == "expected" else ("unexpected-key", "unexpected-item")
    )
    return _governed_within(scope, difference.subject, difference.path, value, key_change, item_change)


def _governed_within(
    scope: _Scope, subject: str, path: str, value: JSON, key_change: str, item_change: str, depth: int = 0
) -> tuple[str, ...]:
    """The rules governing the members of ``value`` (at ``path``) as ``key_change``/``item_change``:
    for each member, the declarations at its own path, else those within it."""
    members: list[tuple[str, str, JSON]] = []
    if isinstance(value, dict):
        members = [(_child(path, key), key_change, inner) for key, inner in value.items()]
    elif isinstance(value, list):
        members = [(f"{path}[{index}]", item_change, inner) for index, inner in enumerate(value)]
    if depth > _MAX_DEPTH:
        return ()
    found: list[str] = []
    for member, change, inner in members:
        rules = _declared(scope, subject, member, change, "", inner)
        found += rules or _governed_within(scope, subject, member, inner, key_change, item_change, depth + 1)
    return tuple(dict.fromkeys(found))


_MAX_DEPTH = 32
"""How deep ``_governed_within`` looks into a value (a value nested deeper is charged by its upper
members only)."""


def _child(path: str, key: str) -> str:
    """The path of ``key`` under ``path``, written as diffs write it
    (``wireconf.cassettes.compare.format_path``)."""
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{key!r}]"


_STEP = re.compile(r"\.[^.\[]+$|\[(?:\d+|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]$")
"""The last step of a diff path: ``.key``, ``[3]``, ``['a key']``."""


def _by_ancestor(scope: _Scope, subject: str, path: str) -> tuple[str, ...]:
    """A difference inside a value no declaration governs at its own path is a difference of the value
    that holds it: charged to the rules governing the nearest enclosing object or array (as a ``value``
    change), the way the diff would have shown it whole."""
    while (step := _STEP.search(path)) is not None and step.start() > 0:
        path = path[: step.start()]
        rules = _declared(scope, subject, path, "value", "")
        if rules:
            return rules
    return ()


_REQUIRED = ("value", "type", "missing-key", "missing-item")
"""What a place of the expected value is when the runtime raised instead: absent, or not that value."""


def _required(scope: _Scope, difference: Difference) -> tuple[str, ...]:
    """The rules a raise breaks where a result was expected (``difference.expected``).

    A declaration that names the raise itself comes first, as any declaration does (``_declared``: a
    rule whose text says the input causes no error, or that this input is sent a certain way). Else the
    runtime produced none of the expected value, so it breaks the rules that require some part of it:
    the rules the case cites that govern a place of the expected value (the value itself, any of its
    keys and items; absent or not that value), all of them: what the case's expectation exercises.
    Where the case cites none of those, the rules that govern the expected value as a whole, else those
    of its places, each charged to its most specific rules (``_governed_within``)."""
    subject, path, expected = difference.subject, difference.path, difference.expected
    named = _declared(scope, subject, path, difference.change, difference.shape)
    if named:
        return named
    places = [(path, expected), *_places(path, expected)]
    exercised = [
        rule_id
        for place, value in places
        for change in _REQUIRED
        for rule_id, _ in scope.declarations(subject, place, change, None, value)
        if rule_id in scope.cited
    ]
    if exercised:
        return tuple(dict.fromkeys(exercised))
    whole = _declared(scope, subject, path, "value", "")
    return whole or _governed_within(scope, subject, path, expected, "missing-key", "missing-item")


def _places(path: str, value: JSON, depth: int = 0) -> Iterator[tuple[str, JSON]]:
    """Every key and item of ``value`` (at ``path``), at any depth: its path and its value."""
    if depth > _MAX_DEPTH:
        return
    members: list[tuple[str, JSON]] = []
    if isinstance(value, dict):
        members = [(_child(path, key), inner) for key, inner in value.items()]
    elif isinstance(value, list):
        members = [(f"{path}[{index}]", inner) for index, inner in enumerate(value)]
    for member, inner in members:
        yield member, inner
        yield from _places(member, inner, depth + 1)


def attribute(
    differences: list[Difference],
    kind: str,
    api: str,
    cited: list[str],
    catalogue: Catalogue,
    case: Mapping[str, Any] | None = None,
) -> list[Attribution]:
    """Each difference with the rules it breaks (see the module docstring); the declarations that apply
    to the case are found once for all of them (once per adapter method), and the provider equivalences
    over all of them at once (one field's two spellings are a pair of differences)."""
    from wireconf.providers.equivalence import representations
    from wireconf.providers.registry import equivalences_of

    found = representations(differences, equivalences_of(api), case)
    scopes: dict[str | None, _Scope] = {}
    first: dict[tuple[str, str, str, str], str | None] = {}
    for d in differences:  # the adapter's method comes first (``judging.verdict.judge_variants``)
        first.setdefault(_unlabelled(d), d.variant)
    out = []
    for difference, equivalence in zip(differences, found, strict=True):
        variant = first[_unlabelled(difference)]  # the method's deviation repeated: what it breaks
        scope = scopes.get(variant) or scopes.setdefault(
            variant, _Scope(kind, api, frozenset(cited), catalogue, case, variant)
        )
        out.append(_attributed(difference, scope, equivalence.name if equivalence is not None else ""))
    return out


_LABEL = re.compile(r"^[a-z][a-z_]*: ")
"""The adapter method's name that ``judging.verdict.judge_variants`` puts before each method's first
difference, when a case calls more than one (``process: ``, ``process_async: ``)."""


def _unlabelled(difference: Difference) -> tuple[str, str, str, str]:
    """A difference as it would read in the adapter's main method: a variant (``process_async``) that
    deviates exactly as that method does gives the same result, as ``8/process-async-same-result``
    asks ("or raises the same error"), and breaks what the method's deviation breaks, not that rule."""
    text = _LABEL.sub("", difference.text, count=1)  # each method's first line names it (``process: ``)
    return difference.subject, difference.path, difference.change, text


def unruled(attributions: list[Attribution]) -> list[Attribution]:
    return [a for a in attributions if a.basis == UNRULED]


def representation(attributions: list[Attribution]) -> list[Attribution]:
    """The differences a provider equivalence covers."""
    return [a for a in attributions if a.representation]


def broken_rules(attributions: list[Attribution]) -> list[str]:
    return list(dict.fromkeys(r for a in attributions for r in a.rules))


def failure_tier(attributions: list[Attribution]) -> Tier | None:
    return most_authoritative([a.tier for a in attributions])
