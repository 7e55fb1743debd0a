"""Two runtimes of one specification, side by side: the cases where they disagree, and for each, which
of them the specification's text supports.

Only cases both runtimes judge are compared (a capability one of them does not declare is not a
disagreement). Two runtimes agree on a case when both pass, or both fail the same way: the same diff,
read without what can only differ between languages (the traceback, which names each runtime's own
files, and the class names of a raised exception, which each language spells its own way).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from wireconf.corpus.rules import Catalogue, Rule
from wireconf.reports.findings import filed_under
from wireconf.reports.jsonl import CaseRecord

JUDGED = ("passed", "failed", "error")
_RAISED = re.compile(r"(raised|but it raised) [\w.]+: ")
_HEADERS = re.compile(r"^the .* differs from the expectation:$")
MAX_CELL = 110
BASIS = {
    "text": "the spec's text",
    "pseudocode": "the spec's pseudocode",
    "vectors": "Prompty's vectors",
    "decision": "project decision",
}
"""How the last column names the basis of the rule broken (docs/rules.md)."""

GAPS = {
    "silent": "the spec is silent",
    "ambiguous": "the spec is ambiguous",
    "conflicting": "the spec contradicts itself",
    "overruled": "the vectors overrule the text",
}
"""Which gap of the spec's text a vectors or decision rule fills (the rule's ``gap``, docs/rules.md)."""


def rule_basis(rule: Rule | None) -> str:
    """``the spec's text``, or, for a rule the text does not decide, its basis and the gap it fills:
    ``project decision: the spec is ambiguous``."""
    if rule is None:
        return "rule unknown"
    basis = BASIS.get(rule.basis, rule.basis)
    gap = GAPS.get(rule.gap or "")
    return f"{basis}: {gap}" if gap else basis


def behaviour(record: CaseRecord) -> str:
    """What the runtime did, as the harness's diff says it, without tracebacks and exception classes."""
    lines, in_traceback = [], False
    for line in (record.diff or record.message or "").splitlines():
        if line.strip() == "traceback (adapter frames):":
            in_traceback = True
            continue
        if in_traceback and line.startswith("    "):
            continue
        in_traceback = False
        lines.append(_RAISED.sub(r"\1: ", line))
    return "\n".join(lines).strip()


@dataclass
class Disagreement:
    case: str
    rule: str
    location: str | None
    left: CaseRecord
    right: CaseRecord

    def supported(self, catalogue: Catalogue) -> str:
        """The runtime the rule broken supports (the one that passes, or neither), and the rule's basis."""
        rule: Rule | None = catalogue.rules.get(self.rule)
        passing = [r for r in (self.left, self.right) if r.status == "passed"]
        who = passing[0].impl if passing else "neither"
        return f"{who} ({rule_basis(rule)})"


@dataclass
class Comparison:
    left: str
    right: str
    both_pass: int
    same_failure: int
    disagreements: list[Disagreement]

    def count(self, left_status: str, right_status: str) -> int:
        return sum(
            1 for d in self.disagreements if (d.left.status, d.right.status) == (left_status, right_status)
        )


def compare(records: list[CaseRecord], left: str, right: str) -> Comparison | None:
    """The comparison of runtimes ``left`` and ``right`` (impl names), or None when one did not run."""
    by_impl: dict[str, dict[str, CaseRecord]] = defaultdict(dict)
    for record in records:
        by_impl[record.impl][record.id] = record
    if not by_impl.get(left) or not by_impl.get(right):
        return None
    both_pass = same_failure = 0
    disagreements = []
    for case, a in sorted(by_impl[left].items()):
        b = by_impl[right].get(case)
        if b is None or a.status not in JUDGED or b.status not in JUDGED:
            continue
        if a.status == b.status == "passed":
            both_pass += 1
        elif a.status == b.status and behaviour(a) == behaviour(b):
            same_failure += 1
        else:
            failing = a if a.status != "passed" else b
            disagreements.append(Disagreement(case, filed_under(failing)[0], a.location, a, b))
    return Comparison(left, right, both_pass, same_failure, disagreements)


_RETURNED = re.compile(r"^expected the adapter to raise .*?, but it returned (?:a|an) [^:]+: (.*)$")
_RAISED_INSTEAD = re.compile(
    r"^expected (?:the adapter to raise .*?|an? .*?), but (?:it|the adapter) raised: (.*)$"
)


def _what(record: CaseRecord) -> tuple[str, str]:
    """What a runtime did for a table cell: ``("passes", "")``, or the first line of what it did
    (returns / raises / the first diff line) and a note on the lines left out."""
    if record.status == "passed":
        return "passes", ""
    lines = [line.strip() for line in behaviour(record).splitlines() if not _HEADERS.match(line.strip())]
    first = lines[0] if lines else record.status
    if match := _RETURNED.match(first):
        first = f"returns {match.group(1)}"
    elif match := _RAISED_INSTEAD.match(first):
        first = f"raises {match.group(1)}"
    more = f" (+{len(lines) - 1} more)" if len(lines) > 1 and not lines[1].startswith("yielded") else ""
    return first, more


def _window(text: str, start: int) -> str:
    """At most MAX_CELL characters of ``text`` from ``start`` (ellipses where it was cut)."""
    start = max(0, min(start, len(text) - MAX_CELL))
    piece = text[start : start + MAX_CELL]
    return ("…" if start > 0 else "") + piece + ("…" if start + MAX_CELL < len(text) else "")


def _cells(left: CaseRecord, right: CaseRecord) -> tuple[str, str]:
    """The two cells; long texts are cut around where they first differ, so the cells show it."""
    (a, a_more), (b, b_more) = _what(left), _what(right)
    start = 0
    if a != b and min(len(a), len(b)) > MAX_CELL:
        start = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), 0) - MAX_CELL // 3

    def cell(text: str, more: str) -> str:
        if text == "passes":
            return text
        shown = _window(text, start if len(text) > MAX_CELL else 0)
        return "fails: `" + shown.replace("`", "'").replace("|", "\\|") + "`" + more

    return cell(a, a_more), cell(b, b_more)


def render(comparison: Comparison, catalogue: Catalogue, labels: dict[str, str]) -> list[str]:
    """The side-by-side section of the findings page (Markdown lines)."""
    left, right = labels[comparison.left], labels[comparison.right]
    agree = comparison.both_pass + comparison.same_failure
    judged = agree + len(comparison.disagreements)
    out = [
        "",
        f"## Side by side: {left} and {right}",
        "",
        "Two implementations of the same specification, run through the same cases on the same recorded",
        f"bytes. Of the {judged} cases both judge, they agree on {agree}",
        f"({comparison.both_pass} pass in both, {comparison.same_failure} fail the same way in both) and",
        f"disagree on {len(comparison.disagreements)}: {comparison.count('passed', 'failed')} pass only in "
        f"{left}, {comparison.count('failed', 'passed')} pass only in {right}, "
        f"{comparison.count('failed', 'failed')} fail in both, differently.",
        "A failure is compared by its diff, without the traceback and the exception's class names (each",
        "language spells its own). The last column names the runtime the rule broken supports, the one",
        "that passes or neither, and what the rule rests on: the spec's text or its pseudocode, Prompty's",
        "upstream vectors, or a project decision, each of the last two with the gap of the text it fills",
        "(the spec is silent, ambiguous, or contradicts itself; docs/rules.md).",
    ]
    by_rule: dict[str, list[Disagreement]] = defaultdict(list)
    for item in comparison.disagreements:
        by_rule[item.rule].append(item)
    for rule_id, items in sorted(by_rule.items()):
        rule: Rule | None = catalogue.rules.get(rule_id)
        heading = f"#### `{rule_id}`" + (f" [{rule.level}]: {rule.statement}" if rule else "")
        out += ["", heading, "", f"| case | {left} | {right} | supported by |", "|---|---|---|---|"]
        for item in items:
            cells = [f"`{item.case}`", *_cells(item.left, item.right), item.supported(catalogue)]
            out.append("| " + " | ".join(cells) + " |")
    return out
