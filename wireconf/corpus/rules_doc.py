"""The rule catalogue rendered for people (``docs/rules.md``): per section, each rule with its level,
its tier, statement, the spec's words, the vectors that decide it, the reason where the spec's text does
not say so, and the cases that check it."""

from __future__ import annotations

from wireconf.corpus.loader import Corpus
from wireconf.corpus.rules import TIERS, Rule

_SEED_TITLES = {
    "001_b1fe58398826e79f.txt": "Prompty specification §7 Wire Format",
    "000_f6d4bac5b65ae7dd.txt": "Prompty specification §8 Processing",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _tier(rule: Rule) -> str:
    """``spec (text)``, ``vectors (overruled)``, ``project (silent)``: the tier and the basis within it,
    or why the spec's text does not decide the rule."""
    return f"{rule.tier} ({rule.basis if rule.tier == 'spec' else rule.gap})"


def render_markdown(corpus: Corpus) -> str:
    catalogue = corpus.catalogue
    by_rule: dict[str, list[str]] = {}
    for case in corpus.cases():
        for rule_id in case.model.rules:
            by_rule.setdefault(rule_id, []).append(case.id)
    counts = {tier: sum(r.tier == tier for r in catalogue.rules.values()) for tier in TIERS}
    out = [
        "# Rule catalogue",
        "",
        "Generated from `cases/rules.yaml` by `wireconf rules --markdown`; do not edit by hand.",
        "",
        f'Corpus version {catalogue.version or "(none declared)"} (docs/ci.md, "Corpus versions").',
        "",
        f"{len(catalogue.rules)} rules in three tiers, by where they come from:",
        "",
        f"- **spec** ({counts['spec']}): the specification's text, a sentence (`text`) or the observable "
        "behaviour of its pseudocode (`pseudocode`);",
        f"- **vectors** ({counts['vectors']}): Prompty's upstream conformance vectors, written by the "
        "spec's authors, decide where the text is silent or says otherwise (the vectors are named; they "
        "are imported as cases by `wireconf import-vectors`);",
        f"- **project** ({counts['project']}): the project's decisions where the spec is silent, "
        "ambiguous or contradicts itself; a decision never contradicts the spec's text.",
        "",
        "Beside a vectors or project rule's tier stands why the spec's text does not decide it: **silent** "
        "(it says nothing that decides the case), **ambiguous** (its words admit more than one reading), "
        "**conflicting** (two of its statements disagree, prose and pseudocode or two sections; the rule "
        "follows one and says which), **overruled** (the text says otherwise and the spec authors' vectors "
        "decide: vectors only).",
        "",
        "Levels: pseudocode behaviour counts as MUST, since the spec introduces its algorithms with "
        '"MUST be converted ... The algorithm is".',
        "",
    ]
    for section in catalogue.sections():
        rules = [r for r in catalogue.rules.values() if r.section == section]
        seed = rules[0].source.seed
        out += [f"## §{section}", "", f"Source: {_SEED_TITLES.get(seed, seed)} (`{seed}`)", ""]
        out += ["| rule | level | tier | statement | cases |", "|---|---|---|---|---|"]
        for rule in rules:
            cases = by_rule.get(rule.id, [])
            out.append(
                f"| `{rule.id}` | {rule.level} | {_tier(rule)} | {_cell(rule.statement)} | {len(cases)} |"
            )
        out.append("")
        for rule in rules:
            if rule.quote or rule.decision or rule.vectors:
                out.append(f"- `{rule.id}`" + (f": spec says “{_cell(rule.quote)}”" if rule.quote else ""))
                if rule.vectors:
                    names = ", ".join(f"`{name}`" for name in rule.vectors)
                    out.append(f"  - **vectors**: {names}")
                if rule.decision:
                    label = "decision" if rule.tier == "project" else "why"
                    out.append(f"  - **{label}**: {_cell(rule.decision)}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"
