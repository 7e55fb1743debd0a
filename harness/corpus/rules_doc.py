"""The rule catalogue rendered for people (``docs/rules.md``): per section, each rule with its level,
statement, the spec's words, the project's reason where it decided, and the cases that check it."""

from __future__ import annotations

from harness.corpus.loader import Corpus

_SEED_TITLES = {
    "001_b1fe58398826e79f.txt": "Prompty specification §7 Wire Format",
    "000_f6d4bac5b65ae7dd.txt": "Prompty specification §8 Processing",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(corpus: Corpus) -> str:
    catalogue = corpus.catalogue
    by_rule: dict[str, list[str]] = {}
    for case in corpus.cases():
        for rule_id in case.model.rules:
            by_rule.setdefault(rule_id, []).append(case.id)
    decisions = [r for r in catalogue.rules.values() if r.origin == "project"]
    out = [
        "# Rule catalogue",
        "",
        "Generated from `cases/rules.yaml` by `wireconf rules --markdown`; do not edit by hand.",
        "",
        f"Corpus version {catalogue.version or '(none declared)'} (docs/ci.md, \"Corpus versions\").",
        "",
        f"{len(catalogue.rules)} rules, {len(decisions)} of them decisions of this project "
        "(marked **decision**: the spec is silent, ambiguous or contradicts itself there).",
        "Levels: pseudocode behaviour counts as MUST, since the spec introduces its algorithms with "
        '"MUST be converted ... The algorithm is".',
        "",
    ]
    for section in catalogue.sections():
        rules = [r for r in catalogue.rules.values() if r.section == section]
        seed = rules[0].source.seed
        out += [f"## §{section}", "", f"Source: {_SEED_TITLES.get(seed, seed)} (`{seed}`)", ""]
        out += ["| rule | level | statement | cases |", "|---|---|---|---|"]
        for rule in rules:
            label = f"{rule.level}, decision" if rule.origin == "project" else rule.level
            cases = by_rule.get(rule.id, [])
            out.append(f"| `{rule.id}` | {label} | {_cell(rule.statement)} | {len(cases)} |")
        out.append("")
        for rule in rules:
            if rule.quote or rule.decision:
                out.append(f"- `{rule.id}`" + (f": spec says “{_cell(rule.quote)}”" if rule.quote else ""))
                if rule.decision:
                    out.append(f"  - **decision**: {_cell(rule.decision)}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"
