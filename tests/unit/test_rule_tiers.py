"""Every rule says where it comes from: its ``basis`` gives its tier (spec, vectors, project), and the
catalogue refuses a rule whose tier and explanation do not go together."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.conftest import CASES
from wireconf.corpus.rules import TIERS, Catalogue, load_catalogue
from wireconf.corpus.rules_doc import render_markdown
from wireconf.kinds.registry import open_corpus

HEAD = "rules:\n  - {id: a.1/x, level: MUST, source: {seed: s, section: a.1}, statement: s, "


def catalogue_of(tmp_path: Path, fields: str) -> Catalogue:
    path = tmp_path / "rules.yaml"
    path.write_text(HEAD + fields + "}\n")
    return load_catalogue(path)


@pytest.mark.parametrize(
    ("fields", "tier"),
    [
        ("basis: text", "spec"),
        ("basis: pseudocode", "spec"),
        ("basis: vectors, gap: overruled, vectors: [chat_refusal], decision: why", "vectors"),
        ("basis: vectors, gap: silent, vectors: [anthropic_tool_use], decision: why", "vectors"),
        ("basis: decision, gap: silent, decision: why", "project"),
        ("basis: decision, gap: conflicting, decision: why, vectors: [responses_simple]", "project"),
    ],
)
def test_the_basis_gives_the_tier(tmp_path, fields, tier):
    catalogue = catalogue_of(tmp_path, fields)
    assert catalogue.problems == []
    assert catalogue.rules["a.1/x"].tier == tier


@pytest.mark.parametrize(
    ("fields", "complaint"),
    [
        ("basis: decision, gap: silent", "must say why in `decision`"),
        ("basis: vectors, gap: silent, vectors: [chat_refusal]", "must say why in `decision`"),
        ("basis: vectors, gap: silent, decision: why", "names the vectors that decide it"),
        ("basis: decision, decision: why", "says in `gap` why"),
        ("basis: decision, gap: overruled, decision: why", "never contradicts the spec's text"),
        ("basis: decision, gap: unclear, decision: why", "gap"),
        ("basis: text, decision: why", "is the spec's own"),
        ("basis: text, gap: silent", "is the spec's own"),
        ("basis: pseudocode, vectors: [chat_simple]", "is the spec's own"),
        ("basis: opinion", "basis"),
        ("basis: decision, gap: silent, decision: why, origin: project", "origin"),
    ],
)
def test_a_tier_without_its_explanation_is_refused_at_its_line(tmp_path, fields, complaint):
    catalogue = catalogue_of(tmp_path, fields)
    assert catalogue.rules == {}
    (problem,) = catalogue.problems
    assert problem.line == 2 and complaint in problem.message


def test_the_corpus_has_every_tier_and_the_rules_page_shows_each_rule_s_tier():
    corpus = open_corpus(CASES)
    rules = list(corpus.catalogue.rules.values())
    assert {rule.tier for rule in rules} <= set(TIERS)
    page = render_markdown(corpus)
    for tier in TIERS:
        count = sum(rule.tier == tier for rule in rules)
        assert f"- **{tier}** ({count}):" in page
    for rule in rules:
        shown = f"{rule.tier} ({rule.basis if rule.tier == 'spec' else rule.gap})"
        assert f"| `{rule.id}` | {rule.level} | {shown} |" in page
        for name in rule.vectors or []:
            assert f"`{name}`" in page


def test_the_catalogue_header_documents_the_basis_and_gap_values():
    header = textwrap.dedent((CASES / "rules.yaml").read_text().split("\nrules:")[0])
    words = ("text", "pseudocode", "vectors", "decision", "silent", "ambiguous", "conflicting", "overruled")
    for word in words:
        assert word in header


def test_no_project_decision_overrules_the_text_and_every_vectors_rule_names_an_imported_vector():
    corpus = open_corpus(CASES)
    imported = {case.model.vector.name for case in corpus.cases() if case.model.vector is not None}
    for rule in corpus.catalogue.rules.values():
        if rule.tier == "project":
            assert rule.gap != "overruled", rule.id
        if rule.tier == "vectors":
            assert rule.vectors and set(rule.vectors) <= imported, rule.id
