"""``wireconf lint``: everything about a corpus that can be checked without running a runtime.

Schema of every case file, unique case ids, rule references that exist, rules that some case cites,
the catalogue itself (every ``when`` condition reading only the case's input:
``wireconf.corpus.conditions``), the upstream vectors rules cite (imported as cases), and cassettes
that the cases name, wherever they name one (each lies under the cassettes folder, exists and holds
the interaction).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wireconf.cassettes.store import CassetteError, CassetteStore
from wireconf.core.untyped import YAML
from wireconf.corpus.agent_model import agent_problems
from wireconf.corpus.conditions import condition_problems, equivalence_problems
from wireconf.corpus.loader import Corpus
from wireconf.corpus.rules import uncovered
from wireconf.providers.registry import API_NAMES, equivalences_of


def _cassette_references(value: YAML, loc: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every mapping of a case that names a cassette (``cassette: <name>``), wherever it stands: a
    response, an e2e or trace case's own cassette, an extract payload; with its place in the case."""
    if isinstance(value, dict):
        if isinstance(value.get("cassette"), str):
            yield loc, value
        for key, inner in value.items():
            yield from _cassette_references(inner, (*loc, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _cassette_references(inner, (*loc, index))


@dataclass(frozen=True)
class LintReport:
    corpus: Corpus
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        cases = sum(1 for _ in self.corpus.cases())
        return (
            f"{cases} cases in {len(self.corpus.entries)} files, {len(self.corpus.catalogue.rules)} rules: "
            + ("ok" if self.ok else f"{len(self.problems)} problem(s)")
        )


def lint(
    corpus: Corpus, cassettes: Path | None = None, input_fields: Mapping[str, frozenset[str]] | None = None
) -> LintReport:
    """Every problem of ``corpus`` (loaded by the caller, with the kinds' case models: a case of a kind
    of streams on an api without streams is one of its problems); with ``input_fields`` (kind → the
    fields of its case model that hold the case's input, ``wireconf.kinds.registry.INPUT_FIELDS``),
    every condition of a rule or an equivalence that reads anything else."""
    problems = [str(p) for p in corpus.catalogue.problems] + [str(p) for p in corpus.problems()]
    if input_fields is not None:
        problems += condition_problems(corpus.catalogue.path, input_fields)
        listed = {api: [(e.name, e.when) for e in equivalences_of(api)] for api in API_NAMES}
        problems += equivalence_problems(listed, input_fields)
    problems += [
        f"{corpus.catalogue.path}: rule {rule_id} has no case"
        for rule_id in uncovered(corpus.catalogue, corpus.cited_rules)
    ]
    imported = {case.model.vector.name for case in corpus.cases() if case.model.vector is not None}
    problems += [
        f"{corpus.catalogue.path}: rule {rule.id} cites vector {name!r}, which no case imported "
        "(wireconf import-vectors)"
        for rule in corpus.catalogue.rules.values()
        for name in rule.vectors or []
        if name not in imported
    ]
    problems += agent_problems(corpus)
    store = CassetteStore(cassettes or corpus.root.parent / "cassettes")
    for case in corpus.cases():
        for loc, node in _cassette_references(case.raw, ()):
            try:
                index = node.get("interaction", 0 if loc else None)  # a case's own cassette: all of it
                if isinstance(index, int):
                    store.interaction(node["cassette"], index)
                else:
                    store.load(node["cassette"])
            except CassetteError as exc:
                problems.append(f"{case.path}:{case.line_of(*loc, 'cassette')}: {case.id}: {exc}")
    return LintReport(corpus, problems)
