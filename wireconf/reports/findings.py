"""The findings page: every deviation of every real runtime, grouped by the rule it breaks, with its diff.

A failing case is filed under the rule its baseline reason starts with when its diff breaks that rule
(``7.1.1/multi-part-is-array: prompty joins ...``: a person who read the diff names which of the rules
broken is the root), else under the first rule its diff breaks (``wireconf.judging.attribution``: the
rule that declares the difference); a rule the case merely cites never files it. A failure whose
differences no rule declares is filed under *no rule requires this* (unruled, no tier: a defect of the
corpus), an error under *not judged*. The other rules the case checks are named with it. The rest of
the reason, the person's explanation, is shown with the diff.

Each runtime's section gives its spec-, interop- and full-profile figures, then two tables of root causes,
most cases first, so a maintainer sees what to fix before reading the diffs, which follow by rule:
failures that share the rule broken and the difference (``wireconf.reports.causes``), and cases that
share an explanation (written with the same words in the baseline).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wireconf.core.differences import generic_path
from wireconf.core.report_text import machine_paths_removed
from wireconf.corpus.rules import Catalogue, Rule
from wireconf.reports.baseline import default_reason
from wireconf.reports.causes import NO_RULE, PROVIDER_REJECTS, UNRULED_NOTE, Cause, group_causes
from wireconf.reports.findings_proofs import Key, Proof
from wireconf.reports.jsonl import CaseRecord
from wireconf.reports.markdown import text
from wireconf.reports.matrix import COLUMNS, RuntimeSummary, build_matrix
from wireconf.reports.reason_check import QUOTED, RULE_ID

MAX_DIFF_LINES = 30
NOT_JUDGED = "not judged (error)"


@dataclass
class NotRun:
    impl: str
    reason: str


_LEADING_RULE = re.compile(r"^\s*([0-9a-z][0-9a-z.]*/[a-z0-9][a-z0-9-]*)\s*[:,]\s*")


EXPLANATIONS = "explanations"
"""The key of ``CaseRecord.extra`` holding the baseline's explanations of the case, rule → text
(``Baseline.explanations``), set by ``wireconf findings`` when it reads the baseline."""

_CODE = re.compile(r"`[^`]*`")


_VERDICT_WORDING = re.compile(r"(expected the adapter to|expected a result, but).*", re.S)
"""The harness's words for a raise or a return where the other was expected, to the end of the text."""
_DIFF_WORDS = frozenset(
    word
    for line in (
        "the a an and but it its this these that is are to of in gives give through result results",
        "item items expected got raised raise returned missing unexpected key keys value type request",
        "body sends sent builds adapter error category",
    )
    for word in line.split()
)
"""Words the harness's diff and an update's first reason use: they say what differs, never why."""


def repeats_the_diff(explanation: str) -> bool:
    """Whether ``explanation`` says nothing but the difference: once the harness's wording of the
    difference (the lines it quotes, "expected the adapter to raise ..."), the rule ids, the code it names
    (a function, a key) and the diff's own words are left out, fewer than four words remain."""
    rest = _VERDICT_WORDING.sub(" ", QUOTED.sub(" ", explanation))
    rest = RULE_ID.sub(" ", _CODE.sub(" ", rest))
    words = [w for w in re.findall(r"[A-Za-z]{2,}", rest) if w.lower() not in _DIFF_WORDS]
    return len(words) < 4


def explanation_of(record: CaseRecord, rules: Sequence[str], place: str | None = None) -> str | None:
    """Why ``record``'s runtime breaks ``rules`` (at ``place``, a generic path, when given): the
    baseline's explanation of that case, rule and place (``<rule> <place>``) or rule, else its reason when
    the reason leads with one of those rules and names the key that differs (an old baseline's one reason
    per case, kept for the difference it was written against: ``_about``); ``None`` when there is none or
    it only repeats the diff (not yet explained)."""
    own: dict[str, str] = record.extra.get(EXPLANATIONS) or {}
    for rule in rules:
        for key in (f"{rule} {place}", rule) if place else (rule,):
            if key in own:
                return own[key]
    rule, explanation = _filed_by_reason(record)
    if explanation is None or rule not in rules or repeats_the_diff(explanation):
        return None
    return explanation if place is None or _about(explanation, place) else None


def _keys(place: str) -> list[str]:
    """The last two keys of a generic path (``$.contents[*].parts[*].inlineData.mimeType`` → ``mimeType``,
    ``inlineData``), each also in its other spelling (``mime_type``)."""
    names = re.findall(r"\.([^.\[]+)", place)[-2:]
    spelled = [re.sub(r"(?<!^)([A-Z])", lambda m: "_" + m.group(1).lower(), n) for n in names]
    spelled += [re.sub(r"_([a-z])", lambda m: m.group(1).upper(), n) for n in names]
    return list(dict.fromkeys([*names, *spelled]))


def _about(explanation: str, place: str) -> bool:
    """Whether a case's one reason is about the difference at ``place``: it names the key there (or the
    one holding it), as a word; a place with no key (the result, an item of it) is any reason's."""
    keys = _keys(place)
    return not keys or any(re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", explanation, re.I) for k in keys)


def filed_under(record: CaseRecord) -> tuple[str, str | None]:
    """The rule a failing case is filed under, and its explanation (the baseline's for that rule, else
    that of its reason, if any)."""
    rule, explanation = _filed_by_reason(record)
    own: dict[str, str] = record.extra.get(EXPLANATIONS) or {}
    return rule, own.get(rule, explanation)


def _filed_by_reason(record: CaseRecord) -> tuple[str, str | None]:
    """The rule a failing case is filed under, and the explanation of its baseline reason (if any)."""
    broken = record.broken
    rejected = any(d.get("basis") == "provider-schema" for d in record.differences or [])
    unnamed = PROVIDER_REJECTS if rejected else NO_RULE
    fallback = broken[0] if broken else unnamed if record.status == "failed" else NOT_JUDGED
    reason = record.reason if record.baseline == "expected" else None
    if reason == default_reason(broken, record.diff, record.message, record.differences):
        return fallback, None  # the update's first reason, which nobody has reviewed yet
    match = _LEADING_RULE.match(reason or "")
    if match and match.group(1) in broken:
        explanation = reason[match.end() :] if reason else None
        default = record.diff and explanation and explanation in record.diff  # the update's first diff line
        return match.group(1), None if default or ", " in (reason or "")[: match.end()] else explanation
    return fallback, reason


REASONS_HEADING = "Cases by baseline reason"
REASON_WORD = "Baseline reason"
REASONS_NOTE = (
    "The reason each case's baseline entry gives, as written (one per case, not per root cause): an"
    " explanation of a root cause is the one its row above shows, proved or not."
)
"""The per-case reasons are shown as what they are, so that the page has one notion of an explained root
cause: the table by difference's, counted as the page's table counts it."""

UNREVIEWED = "(not reviewed yet: the baseline's reason is the harness's first diff line)"
NOT_EXPLAINED = "not yet explained"


@dataclass
class RootCause:
    """One explanation from a baseline and every failing case it explains (across rules)."""

    explanation: str | None
    records: list[CaseRecord]

    @property
    def rules(self) -> list[str]:
        return list(dict.fromkeys(filed_under(r)[0] for r in self.records))


def root_causes(failures: list[CaseRecord]) -> list[RootCause]:
    """The failures grouped by their explanation, most cases first (ties by text); the cases whose
    reason is still the generated one form their own group, last."""
    groups: dict[str | None, list[CaseRecord]] = defaultdict(list)
    for record in sorted(failures, key=lambda r: r.id):
        groups[filed_under(record)[1]].append(record)
    causes = [RootCause(text, cases) for text, cases in groups.items()]
    return sorted(causes, key=lambda c: (c.explanation is None, -len(c.records), c.explanation or ""))


def _basis(rule_ids: list[str], catalogue: Catalogue) -> str:
    """The tiers of the rules (spec, vectors, project decision), most authoritative first."""
    tiers = set()
    for rule_id in rule_ids:
        if rule_id in (NO_RULE, NOT_JUDGED, PROVIDER_REJECTS):
            continue
        rule: Rule | None = catalogue.rules.get(rule_id)
        tiers.add("unknown" if rule is None else rule.tier)
    names = {"spec": "spec", "vectors": "vectors", "project": "project decision", "unknown": "unknown"}
    order = ["spec", "vectors", "project", "unknown"]
    shown = [names[tier] for tier in order if tier in tiers]
    shown += ["unruled"] if NO_RULE in rule_ids else []
    shown += ["provider schema"] if PROVIDER_REJECTS in rule_ids else []
    shown += ["none (error)"] if NOT_JUDGED in rule_ids else []
    return " + ".join(shown)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _codes(items: list[str]) -> str:
    return ", ".join(f"`{item}`" for item in items)


def _fence(text: str) -> list[str]:
    lines = text.rstrip().splitlines()
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... {len(lines) - MAX_DIFF_LINES} more line(s)"]
    return ["  ```", *("  " + line for line in lines), "  ```"]


def _rule_heading(rule_id: str, catalogue: Catalogue) -> list[str]:
    if rule_id == NO_RULE:
        return [f"#### {NO_RULE}", "", f"{UNRULED_NOTE[0].upper()}{UNRULED_NOTE[1:]}.", ""]
    if rule_id == PROVIDER_REJECTS:
        note = (
            "The request the runtime sent is one the provider's pinned contract rejects, where the "
            "expectation is not: a failure in every profile (wireconf.judging.schema_check)."
        )
        return [f"#### {PROVIDER_REJECTS}", "", note, ""]
    if rule_id == NOT_JUDGED:
        return [f"#### {NOT_JUDGED}", "", "The harness could not judge these cases: no verdict, no rule.", ""]
    rule: Rule | None = catalogue.rules.get(rule_id)
    if rule is None:
        return [f"#### `{rule_id}`", ""]
    out = [f"#### `{rule_id}` [{rule.level}]: {rule.statement}", ""]
    if rule.quote:
        out += [f"> {rule.quote.strip()}", ""]
    if rule.tier == "project":
        origin = f"project decision ({rule.decision})"
    elif rule.tier == "vectors":
        origin = f"Prompty's vectors {', '.join(rule.vectors or [])} ({rule.decision})"
    else:
        origin = f"seed {rule.source.seed}"
    out += [f"Source: §{rule.source.section}, {origin}.", ""]
    return out


def _cause_table(causes: list[RootCause], catalogue: Catalogue) -> list[str]:
    out = ["| cases | baseline reason | rules broken | basis |", "|---:|---|---|---|"]
    for cause in causes:
        text = cause.explanation or UNREVIEWED
        rules = cause.rules
        named = ", ".join(r if r in (NO_RULE, NOT_JUDGED, PROVIDER_REJECTS) else f"`{r}`" for r in rules)
        out.append(f"| {len(cause.records)} | {_cell(text)} | {named} | {_basis(rules, catalogue)} |")
    return out


def difference_causes(rt: RuntimeSummary) -> list[Cause]:
    """The rows of a runtime's "Root causes by difference" table: its failures grouped by the rule
    broken and the difference (``wireconf.reports.causes``)."""
    return group_causes((r.id, r.differences or []) for r in rt.failures if r.status == "failed")


Reproducible = Callable[[CaseRecord, dict[str, Any]], bool]
"""Whether ``wireconf repro`` makes a script for a failing case that checks one of its differences (its
runtime has a template for its kind, the difference is one a script checks): decided by the caller,
which knows the runtimes."""


REJECTED_RULE = "provider-contract"
"""What a reproduction of a request the provider's contract rejects cites as its rule (no rule of the
catalogue governs it: the provider's contract does)."""


def repro_target(
    cause: Cause, records: dict[str, CaseRecord], reproducible: Reproducible | None
) -> tuple[CaseRecord, str | None, str] | None:
    """The case, rule and place (generic) of the ``wireconf repro`` command reproducing ``cause``: its
    first reproducible case, the differences at its place; ``None`` when none is reproducible."""
    if reproducible is None:
        return None
    for case_id in cause.cases:
        record = records[case_id]
        for difference in record.differences or []:
            if str(difference.get("signature", "")) == cause.signature and reproducible(record, difference):
                rule = cause.rules[0] if cause.rules else (REJECTED_RULE if cause.rejected else None)
                return record, rule, generic_path(str(difference.get("path", "$")))
    return None


def repro_command(cause: Cause, records: dict[str, CaseRecord], reproducible: Reproducible | None) -> str:
    """The ``wireconf repro`` command line reproducing ``cause`` (``repro_target``), or ``""``."""
    target = repro_target(cause, records, reproducible)
    if target is None:
        return ""
    record, rule, path = target
    ruled = f" --rule {rule}" if rule else ""
    return f"`wireconf repro --runtime {record.impl} {record.id}{ruled} --path '{path}'`"


Proofs = dict[str, dict[Key, Proof]]
"""The proofs of each runtime's explanations (``findings_proofs``), by the runtime's adapter name."""

PROVED = " *(proved by its reproduction)*"
NOT_PROVED = "*(explained, not yet proved)* "
"""How a root cause's explanation that its reproduction has not proved opens: never a plain explanation."""


def proof_of(
    cause: Cause, records: dict[str, CaseRecord], reproducible: Reproducible | None, proofs: Proofs
) -> Proof | None:
    """The recorded run of ``cause``'s reproduction (``findings_proofs``), if its release has one."""
    target = repro_target(cause, records, reproducible)
    if target is None:
        return None
    record, rule, path = target
    return proofs.get(record.impl, {}).get((record.version, record.id, rule or "", path))


def proved(
    cause: Cause,
    explanation: str | None,
    records: dict[str, CaseRecord],
    reproducible: Reproducible | None,
    proofs: Proofs,
) -> bool:
    """Whether ``explanation`` of ``cause`` is proved by its reproduction (``Proof.proves``)."""
    proof = proof_of(cause, records, reproducible, proofs)
    return explanation is not None and proof is not None and proof.proves(explanation)


def cause_explanation(cause: Cause, records: dict[str, CaseRecord]) -> str | None:
    """The explanation most of ``cause``'s cases give for its rules at its place (``explanation_of``);
    ``None``: not yet explained."""
    place = cause.signature.split(" ", 1)[-1].rsplit(": ", 1)[0]
    found = Counter(explanation_of(records[c], cause.rules, place) for c in cause.cases)
    found.pop(None, None)
    return found.most_common(1)[0][0] if found else None


def _difference_table(
    rt: RuntimeSummary, causes: list[Cause], reproducible: Reproducible | None, proofs: Proofs
) -> list[str]:
    """Failures grouped by the rule broken and the difference, each with the explanation most of its
    cases' baseline reasons give (marked when its reproduction proves it), and the command that
    reproduces it without wireconf."""
    by_id = {r.id: r for r in rt.failures}
    if not causes:
        return []
    out = [
        "| cases | rules broken | tier | difference | explanation | reproduce |",
        "|---:|---|---|---|---|---|",
    ]
    for cause in causes:
        explanation = cause_explanation(cause, by_id)
        rules = cause.rules_text(code=True)
        text = _cell(explanation or NOT_EXPLAINED)
        if explanation is not None:
            shown = proved(cause, explanation, by_id, reproducible, proofs)
            text = text + PROVED if shown else NOT_PROVED + text
        command = _cell(repro_command(cause, by_id, reproducible))
        example = f"`{_cell(cause.example)}`"
        out.append(f"| {len(cause.cases)} | {rules} | {cause.tier_text} | {example} | {text} | {command} |")
    return out


def _deviations(cases: list[CaseRecord], rule_id: str) -> list[str]:
    """The cases of one rule, those sharing an explanation under it once."""
    out: list[str] = []
    for cause in root_causes(cases):
        count = len(cause.records)
        out += [
            "",
            f"**{REASON_WORD}** ({count} case{'s' if count > 1 else ''}): {cause.explanation or UNREVIEWED}",
            "",
        ]
        for record in cause.records:
            also = [r for r in record.rules if r != rule_id]
            line = f"- `{record.id}` ({record.location or 'location unknown'})"
            out.append(line + (f"; also checks {_codes(also)}" if also else ""))
            out += _fence(record.diff or record.message or "(no details)")
    return out


def _capabilities(rt: RuntimeSummary) -> str:
    """The capabilities judged, or those unsupported, whichever list is shorter."""
    judged = sorted({f"{r.kind}:{r.api}" for r in rt.records if r.status not in ("unsupported", "skipped")})
    skipped = sorted({f"{r.kind}:{r.api}" for r in rt.records if r.status == "unsupported"} - set(judged))
    if not skipped:
        return ""
    if len(judged) < len(skipped):
        return f" Declares only {', '.join(judged)} ({len(skipped)} other capabilities unsupported)."
    return f" Not declared (unsupported): {', '.join(skipped)}."


def _rules_broken(groups: dict[str, list[CaseRecord]]) -> list[str]:
    """The rules of the catalogue the failures are filed under (not the headings of failures that break
    none: no rule requires this, the provider rejects, not judged)."""
    return [rule for rule in groups if rule not in (NO_RULE, NOT_JUDGED, PROVIDER_REJECTS)]


def _counts_line(
    rt: RuntimeSummary,
    groups: dict[str, list[CaseRecord]],
    rows: RowCounts,
    causes: list[RootCause],
) -> str:
    """The section's first sentence, whose every count is that of a table or list below it: the failed
    and not-judged cases, the rules they are filed under (Deviations by rule), the rows of "Root causes by
    difference", those explained and those proved (the one notion of an explained root cause, as the
    page's table counts it), and the cases whose baseline reason is still the generated one."""
    failed, errors = rt.counts["failed"], rt.counts["error"]
    rules = len(_rules_broken(groups))
    unruled = len(groups.get(NO_RULE, []))
    text = f"{rt.counts['passed']} of {rt.judged} judged cases pass; {failed} fail"
    text += f" and {errors} could not be judged (error)" if errors else ""
    text += f", breaking {rules} rule(s)"
    text += f" ({unruled} case(s) with differences no rule declares)" if unruled else ""
    unreviewed = sum(len(c.records) for c in causes if c.explanation is None)
    tables = [
        f"{rows.rows} by difference",
        f"{rows.explained} explained ({rows.proven} proved by their reproduction)",
    ]
    if unreviewed:
        tables.append(f"{unreviewed} case(s) whose baseline reason is not reviewed yet")
    return text + f". Root causes: {', '.join(tables)}." if causes else text + "."


@dataclass
class RowCounts:
    """Of root causes by difference: how many there are, have a reproduction, whose reproduction ran
    (``wireconf repro --verify``) and failed as the finding says, have an explanation, and have one
    their reproduction proves."""

    rows: int = 0
    reproduced: int = 0
    shown: int = 0
    explained: int = 0
    proven: int = 0

    def add(self, other: RowCounts) -> None:
        for name in ("rows", "reproduced", "shown", "explained", "proven"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def row_counts(
    rt: RuntimeSummary, by_difference: list[Cause], reproducible: Reproducible | None, proofs: Proofs
) -> RowCounts:
    """A runtime's ``RowCounts``."""
    by_id = {r.id: r for r in rt.failures}
    counts = RowCounts(rows=len(by_difference))
    for cause in by_difference:
        explanation = cause_explanation(cause, by_id)
        proof = proof_of(cause, by_id, reproducible, proofs)
        counts.reproduced += repro_target(cause, by_id, reproducible) is not None
        counts.shown += proof is not None and proof.exit == 1 and proof.shown
        counts.explained += explanation is not None
        counts.proven += explanation is not None and proof is not None and proof.proves(explanation)
    return counts


def _runtime_section(
    rt: RuntimeSummary,
    groups: dict[str, list[CaseRecord]],
    causes: list[RootCause],
    catalogue: Catalogue,
    reproducible: Reproducible | None = None,
    proofs: Proofs | None = None,
) -> list[str]:
    out = ["", f"## {text(rt.label)}", ""]
    by_difference = difference_causes(rt)
    rows = row_counts(rt, by_difference, reproducible, proofs or {})
    counts = _counts_line(rt, groups, rows, causes)
    if by_difference and rows.reproduced:
        counts += (
            f" Of the {rows.rows} by difference, {rows.reproduced} have a reproduction ({rows.shown} run by"
            " `wireconf repro --verify` and failing as their finding says)."
        )
    out.append(counts + _capabilities(rt))
    out += [
        "",
        f"Spec profile: {rt.spec_conform} of {rt.judged} judged cases conform to the spec's text; interop "
        f"profile: {rt.interop_pass} of {rt.judged} are what the provider would read as the spec's "
        f"requests; full profile: {rt.counts['passed']} of {rt.judged} pass every rule (failures by the "
        f"tier of the rules their diff breaks: {rt.tiers_text()}).",
    ]
    if not causes:
        return out
    table = _difference_table(rt, by_difference, reproducible, proofs or {})
    if table:
        out += ["", "### Root causes by difference", "", *table]
    out += ["", f"### {REASONS_HEADING}", "", REASONS_NOTE, "", *_cause_table(causes, catalogue)]
    out += ["", "### Deviations by rule"]
    for rule_id, cases in groups.items():
        out += ["", *_rule_heading(rule_id, catalogue)[:-1], *_deviations(cases, rule_id)]
    return out


INTRO = [
    "Each runtime's section opens with its root causes by difference: the failures that break the same",
    "rule at the same place in the same way, each with one explanation (written in the runtime's",
    "baseline, `conformance/<runtime>.yaml`, for that rule and place), marked proved when its",
    "reproduction ran, failed as its finding says and called every function the explanation names,",
    "else *explained, not yet proved*; the page's table counts the same root causes. Then every failing",
    "case, filed under the rule it breaks, with the rule's text, its baseline reason as written and the",
    "harness's diff. The spec profile counts the cases whose diff breaks no rule of the spec's text; the",
    "interop profile, those that pass once differences the provider reads alike (its equivalences, with",
    "their sources) are set aside as representation; the full profile, those that pass every rule.",
    "A rule whose basis is a *project decision* is",
    "where the specification is silent or ambiguous and wireconf decided (the decision is quoted with",
    "the rule, and in docs/rules.md); a runtime that differs there deserves a look rather than a verdict.",
]


def _proof_summary(
    runtimes: Sequence[RuntimeSummary], reproducible: Reproducible | None, proofs: Proofs
) -> list[str]:
    """The page's figures of reproductions and proved explanations, over every runtime's root causes
    by difference, and how an explanation is proved."""
    if reproducible is None:
        return []
    total = RowCounts()
    for rt in runtimes:
        total.add(row_counts(rt, difference_causes(rt), reproducible, proofs))
    return [
        "",
        f"Root causes by difference: {total.rows}; {total.reproduced} with a reproduction (`wireconf repro`:"
        " a script that needs only the runtime and its SDK), of which"
        f" {total.shown} were run by `wireconf repro --verify` and failed as their finding says (exit 1,"
        f" the rule printed); {total.explained} explained, {total.proven} of those explanations proved by"
        " their reproduction: it failed so, and every function the explanation names (`module:function`,"
        " or an npm package's) was called on the way (`conformance/proofs/`, kept for that explanation's"
        " text and that release).",
    ]


def render_findings(
    records: list[CaseRecord],
    catalogue: Catalogue,
    not_run: list[NotRun],
    command: str,
    corpus_size: int,
    appendix: Sequence[str] = (),
    corpus_version: str | None = None,
    reproducible: Reproducible | None = None,
    proofs: Proofs | None = None,
) -> str:
    """The page; ``appendix`` (Markdown lines) closes it (the side-by-side comparisons); ``proofs``
    (``findings_proofs``) marks the explanations their reproduction proves."""
    matrix = build_matrix(records)
    version = f" (version {corpus_version})" if corpus_version else ""
    out = [
        "# Findings: where real runtimes deviate from the specification",
        "",
        f"Generated by `{command}` from a corpus of {corpus_size} cases{version}; do not edit by hand:",
        "re-run the command (it also refreshes each runtime's baseline under `conformance/`, keeping",
        "the reasons written there, which this page shows).",
        "",
        *([matrix.judged_by_text(), ""] if matrix.judged_by_text() else []),
        *INTRO,
        "",
        "| runtime | "
        + " | ".join(COLUMNS)
        + " | rules broken | root causes by difference | explained (proved) | spec profile | interop profile "
        "| full profile |",
        "|---|" + "---|" * (len(COLUMNS) + 6),
    ]
    by_runtime: dict[str, tuple[dict[str, list[CaseRecord]], list[RootCause]]] = {}
    for rt in matrix.runtimes:
        groups: dict[str, list[CaseRecord]] = defaultdict(list)
        for record in rt.failures:
            groups[filed_under(record)[0]].append(record)
        causes = root_causes(rt.failures)
        by_runtime[rt.label] = (dict(sorted(groups.items())), causes)
        counts = " | ".join(str(rt.counts[c]) for c in COLUMNS)
        figures = (rt.spec_conform, rt.interop_pass, rt.counts["passed"])
        profiles = " | ".join(f"{n}/{rt.judged}" for n in figures)
        rows = row_counts(rt, difference_causes(rt), reproducible, proofs or {})
        rules = len(_rules_broken(groups))
        causes_row = f"{rules} | {rows.rows} | {rows.explained} ({rows.proven} proved)"
        out.append(f"| {text(rt.label)} | {counts} | {causes_row} | {profiles} |")
    for item in not_run:
        out.append(f"| {text(item.impl)} | not run: {text(item.reason)} |" + " |" * (len(COLUMNS) + 5))
    out += _proof_summary(matrix.runtimes, reproducible, proofs or {})
    idle = [rt for rt in matrix.runtimes if not rt.judged]
    if idle:
        out += ["", "Not judged here, every case unsupported (`pytest cases --impl <runtime>` says why):"]
        out += [f"- {text(rt.label)}" for rt in idle]
    for rt in matrix.runtimes:
        if rt.judged:
            out += _runtime_section(rt, *by_runtime[rt.label], catalogue, reproducible, proofs)
    # no folder of the machines that ran the runtimes or wrote the page: it reads the same from anywhere
    return machine_paths_removed("\n".join([*out, *appendix]) + "\n")
