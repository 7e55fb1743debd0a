"""The corpus's version and content hash, a case's fingerprint, and the baseline file that records them."""

from __future__ import annotations

import re
import shutil

import pytest

from tests.conftest import CASES, REPO
from wireconf.cassettes.store import CassetteStore
from wireconf.cli import main
from wireconf.commands.findings import RUNTIMES_FILE, listed_runtimes
from wireconf.corpus.identity import case_fingerprint, corpus_hash, corpus_identity, declared_version
from wireconf.corpus.rules import load_catalogue
from wireconf.kinds.registry import open_corpus
from wireconf.reports.baseline import NEW, REGRESSION, UNLISTED, BaselineError, load_baseline


@pytest.fixture
def copy(tmp_path):
    """A copy of the corpus and its cassettes, to edit."""
    shutil.copytree(CASES, tmp_path / "cases")
    shutil.copytree(REPO / "cassettes", tmp_path / "cassettes")
    return tmp_path / "cases"


def test_the_project_declares_its_corpus_version():
    catalogue = load_catalogue(CASES / "rules.yaml")
    assert not catalogue.problems
    assert catalogue.version is not None and declared_version(CASES / "rules.yaml") == catalogue.version


def test_the_hash_covers_cases_data_and_cassettes_but_not_caches(copy):
    before = corpus_hash(copy, copy.parent / "cassettes")
    (copy / "_data" / "mcp" / "__pycache__").mkdir(exist_ok=True)
    (copy / "_data" / "mcp" / "__pycache__" / "server.cpython-311.pyc").write_bytes(b"\0")
    assert corpus_hash(copy, copy.parent / "cassettes") == before  # pip compiles data on install
    crlf = copy / "wire" / "openai.chat" / "options.yaml"
    crlf.write_bytes(crlf.read_bytes().replace(b"\n", b"\r\n"))
    assert corpus_hash(copy, copy.parent / "cassettes") == before  # a Windows checkout
    for edited in (
        copy / "_data" / "openapi" / "orders.json",
        next((copy.parent / "cassettes").rglob("*.yaml")),
    ):
        original = edited.read_bytes()
        edited.write_bytes(original + b"\n")
        assert corpus_hash(copy, copy.parent / "cassettes") != before, edited
        edited.write_bytes(original)


def test_a_fingerprint_changes_with_the_case_and_its_cassette_only(copy):
    def fingerprints():
        store = CassetteStore(copy.parent / "cassettes")
        return {c.id: case_fingerprint(c, store) for c in open_corpus(copy).cases()}

    before = fingerprints()
    e2e = next(c for c in open_corpus(copy).cases() if isinstance(c.raw.get("cassette"), str))
    name = e2e.raw["cassette"]
    cassette = copy.parent / "cassettes" / f"{name}.yaml"
    cassette.write_text(cassette.read_text() + "\n# edited\n")
    middle = fingerprints()
    changed = {k for k, v in middle.items() if before[k] != v}
    users = {c.id for c in open_corpus(copy).cases() if f"'cassette': '{name}'" in str(c.raw)}
    assert e2e.id in changed and changed == users

    text = e2e.path.read_text()
    e2e.path.write_text(text.replace(f"id: {e2e.id}\n", f"id: {e2e.id}\n    # a comment\n", 1))
    assert fingerprints() == middle  # a comment is not part of the case
    assert "rules: [" in text and f"id: {e2e.id}\n" in text
    e2e.path.write_text(text.replace("rules: [", "rules: [\n      ", 1))  # nor is the layout
    assert fingerprints() == middle


def test_a_malformed_version_is_a_lint_problem(copy, capsys):
    rules = copy / "rules.yaml"
    rules.write_text(re.sub(r"\n  version: (\d)", r"\n  version: v\1", rules.read_text(), count=1))
    assert declared_version(rules) is None
    assert corpus_identity(copy).version is None
    assert main(["lint", str(copy)]) == 1
    assert "corpus.version: expected MAJOR.MINOR.PATCH, got 'v" in capsys.readouterr().out


def test_an_older_baseline_file_still_loads(tmp_path):
    path = tmp_path / "old.yaml"
    path.write_text("impl: rt\nversion: 2.1\nexpected_failures:\n  a.b.c: why\n")
    baseline = load_baseline(path)
    assert (baseline.impl, baseline.version, baseline.expected) == ("rt", "2.1", {"a.b.c": "why"})
    assert baseline.passed is None and baseline.corpus is None
    assert baseline.history("x.y.z", "0123456789")[0] == UNLISTED
    for runtime in listed_runtimes(REPO / "conformance" / RUNTIMES_FILE):
        load_baseline(REPO / "conformance" / f"{runtime.name}.yaml")  # every baseline as committed


def test_a_baseline_round_trips_and_knows_each_case_s_history(tmp_path):
    path = tmp_path / "b.yaml"
    path.write_text(
        "impl: rt\nversion: '1'\ncorpus: {version: 1.0.0, hash: 'sha256:0011'}\n"
        "expected_failures: {a: why}\npassed: {b: f1}\n"
    )
    baseline = load_baseline(path)
    assert baseline.history("b", "f1")[0] == REGRESSION
    kind, why = baseline.history("b", "f2")
    assert kind == NEW and "changed since" in why and "1.0.0 (sha256:0011)" in why
    assert baseline.history("c", "f3")[0] == NEW
    baseline.save()
    again = load_baseline(path)
    assert (again.expected, again.passed, again.corpus) == (
        baseline.expected,
        baseline.passed,
        baseline.corpus,
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("passed: [a, b]", "`passed` must map case ids to fingerprints"),
        ("corpus: 1.0.0", "`corpus` must be a mapping with `version` and `hash`"),
        # waivers are a section since issue 11 (path-level waivers): malformed, they say so; a typo of
        # a section's name is still unknown
        ("waivers: {}", "`waivers` must be a list of {path, change, reason, cases}"),
        (
            "waiver: []",
            "unknown key(s) waiver (known: impl, version, corpus, expected_failures, explanations, waivers, "
            "passed)",
        ),
    ],
)
def test_a_malformed_baseline_names_the_file_and_the_section(tmp_path, content, message):
    path = tmp_path / "bad.yaml"
    path.write_text(content)
    with pytest.raises(BaselineError, match=f"--baseline {path}: " + re.escape(message)):
        load_baseline(path)
