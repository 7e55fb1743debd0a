"""The findings page's view per rule across runtimes: which runtimes break each rule, with which difference,
and the rules most runtimes break, listed as questions for the spec's authors.

A rule nearly every runtime breaks is a sign the text is unclear or the rule is wrong, not nine bugs: the
spec's authors want the sentence, the project's reading (the rule's statement and, for a project
decision, why) and each runtime's reading (what it sends or returns instead, and the explanation its
baseline gives). A runtime *judged on* a rule ran at least one case that checks it (cites it, or breaks
it); it *breaks* it when a difference of one of its failures is attributed to it
(``wireconf.judging.attribution``). "Most" is more than half of the runtimes judged on the rule, and at
least ``QUESTION_MINIMUM`` of them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from wireconf.corpus.rules import Catalogue
from wireconf.reports.findings import (
    NOT_PROVED,
    PROVED,
    Proofs,
    Reproducible,
    cause_explanation,
    difference_causes,
    explanation_of,
    proved,
)
from wireconf.reports.jsonl import CaseRecord
from wireconf.reports.markdown import text
from wireconf.reports.matrix import build_matrix

QUESTION_MINIMUM = 3
EXAMPLE_LENGTH = 160
"""A difference quoting a whole request body is cut: the place and the start of the values say it."""
JUDGED = ("passed", "failed")


@dataclass
class Reading:
    """One runtime on one rule: the cases judged on it, those that break it, and the differences."""

    judged: set[str] = field(default_factory=set)
    broken: set[str] = field(default_factory=set)
    differences: Counter[str] = field(default_factory=Counter)
    explanations: Counter[str] = field(default_factory=Counter)

    @property
    def example(self) -> str:
        """The most frequent difference (cut at ``EXAMPLE_LENGTH``), and how many others there are."""
        line, _ = self.differences.most_common(1)[0]
        line = line if len(line) <= EXAMPLE_LENGTH else line[: EXAMPLE_LENGTH - 1] + "…"
        more = len(self.differences) - 1
        return line + (f" (+{more} other difference(s))" if more else "")


def readings(records: list[CaseRecord]) -> dict[str, dict[str, Reading]]:
    """rule → runtime → its reading, for every rule some runtime was judged on."""
    out: dict[str, dict[str, Reading]] = defaultdict(dict)
    for record in records:
        if record.status not in JUDGED:
            continue
        broken = record.broken
        for rule in dict.fromkeys([*record.rules, *broken]):
            reading = out[rule].setdefault(record.runtime, Reading())
            reading.judged.add(record.id)
            if rule not in broken:
                continue
            reading.broken.add(record.id)
            lines = [
                str(d.get("text") or d.get("signature") or "")
                for d in record.differences or []
                if rule in (d.get("rules") or [])
            ]
            if record.differences is None:  # a report older than attributions: the diff's first line
                lines = [line.strip() for line in (record.diff or "").splitlines() if line.strip()][1:2]
            for line in lines or ["(no difference recorded)"]:
                reading.differences[line.splitlines()[0] if line else "?"] += 1
            explanation = explanation_of(record, [rule])
            if explanation:
                reading.explanations[explanation] += 1
    return dict(out)


def is_question(by_runtime: dict[str, Reading]) -> bool:
    """Whether most runtimes judged on a rule break it."""
    breaking = sum(1 for r in by_runtime.values() if r.broken)
    return breaking >= QUESTION_MINIMUM and breaking * 2 > len(by_runtime)


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def proved_explanations(
    records: list[CaseRecord], reproducible: Reproducible | None, proofs: Proofs
) -> set[tuple[str, str]]:
    """(runtime, explanation) of every root cause by difference whose reproduction proves its explanation
    (``findings.proved``): the page's one notion of a proved explanation."""
    out: set[tuple[str, str]] = set()
    for rt in build_matrix(records).runtimes:
        by_id = {r.id: r for r in rt.failures}
        for cause in difference_causes(rt):
            explanation = cause_explanation(cause, by_id)
            if explanation is not None and proved(cause, explanation, by_id, reproducible, proofs):
                out.update((by_id[case].runtime, explanation) for case in cause.cases)
    return out


def render_rules_view(
    records: list[CaseRecord],
    catalogue: Catalogue,
    reproducible: Reproducible | None = None,
    proofs: Proofs | None = None,
) -> list[str]:
    """The page's section: the questions for the spec's authors, then every rule broken by two runtimes or
    more, most runtimes first; an explanation is marked proved by its reproduction, or not yet."""
    shown = proved_explanations(records, reproducible, proofs or {})
    found = readings(records)
    broken = {rule: by for rule, by in found.items() if sum(1 for r in by.values() if r.broken) >= 2}
    order = sorted(broken, key=lambda rule: (-sum(1 for r in broken[rule].values() if r.broken), rule))
    questions = [rule for rule in order if is_question(broken[rule])]
    out = [
        "",
        "## Rules across runtimes",
        "",
        f"Rules broken by two runtimes or more ({len(order)}), most runtimes first: how many of the",
        "runtimes judged on the rule (that ran a case checking it) break it, and each one's most frequent",
        f"difference. A rule most of them break (more than half, at least {QUESTION_MINIMUM}) is first",
        f"listed as a question for the spec's authors ({len(questions)}).",
    ]
    if questions:
        out += ["", "### Questions for the spec's authors"]
    for rule_id in questions:
        out += _question(rule_id, broken[rule_id], catalogue, shown)
    out += ["", "### Which runtimes break each rule", ""]
    out += ["| rule | broken by | runtimes and their difference |", "|---|---:|---|"]
    for rule_id in order:
        by = broken[rule_id]
        breaking = sorted(name for name, r in by.items() if r.broken)
        cells = "<br>".join(f"{text(name)}: `{_cell(by[name].example)}`" for name in breaking)
        out.append(f"| `{rule_id}` | {len(breaking)} of {len(by)} | {cells} |")
    return out


def _question(
    rule_id: str, by: dict[str, Reading], catalogue: Catalogue, shown: set[tuple[str, str]]
) -> list[str]:
    rule = catalogue.rules.get(rule_id)
    breaking = sorted(name for name, r in by.items() if r.broken)
    out = ["", f"#### `{rule_id}`: broken by {len(breaking)} of the {len(by)} runtimes judged on it", ""]
    if rule is not None:
        spec = (
            f"> {rule.quote.strip()}" if rule.quote else "(the spec says nothing here: no sentence to quote)"
        )
        out += [f"The spec (§{rule.source.section}):", "", spec, ""]
        ours = f"The project's reading [{rule.level}, {rule.tier}]: {rule.statement}"
        out += [ours + (f" Decided: {rule.decision}" if rule.tier != "spec" and rule.decision else ""), ""]
    out += ["Each runtime's reading:", ""]
    for name in breaking:
        reading = by[name]
        line = f"- {text(name)} ({len(reading.broken)} of {len(reading.judged)} case(s)): `{reading.example}`"
        explained = reading.explanations.most_common(1)
        if not explained:
            out.append(line + ". Why: not yet explained.")
            continue
        why = explained[0][0]
        out.append(line + (f". Why: {why}{PROVED}" if (name, why) in shown else f". Why: {NOT_PROVED}{why}"))
    passing = sorted(name for name, r in by.items() if not r.broken)
    if passing:
        out += ["", f"Judged on it and never breaking it: {', '.join(text(n) for n in passing)}."]
    return out
