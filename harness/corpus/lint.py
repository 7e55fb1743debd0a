"""``wireconf lint``: everything about a corpus that can be checked without running a runtime.

Schema of every case file, unique case ids, rule references that exist, rules that some case cites,
the catalogue itself, the upstream vectors rules cite (imported as cases), and cassettes that the cases
name (they exist and hold the interaction).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness.adapter_contract import stream_without_stream
from harness.cassettes.store import CassetteError, CassetteStore
from harness.corpus.agent_model import agent_problems
from harness.corpus.loader import Corpus
from harness.corpus.model import CassetteRef
from harness.corpus.rules import uncovered


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


def lint(root: Path, cassettes: Path | None = None) -> LintReport:
    corpus = Corpus(root)
    problems = [str(p) for p in corpus.catalogue.problems] + [str(p) for p in corpus.problems()]
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
    problems += [
        f"{case.path}:{case.line}: {case.id}: kind {case.kind} on {case.api}: {why}"
        for case in corpus.cases()
        if (why := stream_without_stream(case.kind, case.api))
    ]
    problems += agent_problems(corpus)
    store = CassetteStore(cassettes or corpus.root.parent / "cassettes")
    for case in corpus.cases():
        source = getattr(case.model, "response", None)
        if isinstance(source, CassetteRef):
            try:
                store.interaction(source.cassette, source.interaction)
            except CassetteError as exc:
                problems.append(f"{case.path}:{case.line_of('response')}: {case.id}: {exc}")
        cassette = getattr(case.model, "cassette", None)  # e2e: the cassette that answers the runtime
        if isinstance(cassette, str):
            try:
                store.load(cassette)
            except CassetteError as exc:
                problems.append(f"{case.path}:{case.line_of('cassette')}: {case.id}: {exc}")
    return LintReport(corpus, problems)
