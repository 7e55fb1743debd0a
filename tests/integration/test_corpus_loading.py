"""Bad case files become one failing item each, naming the file and line; everything else still runs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

RULES = """\
rules:
  - id: 7.1.1/single-text-part-is-string
    level: MUST
    basis: text
    source: {seed: s7.txt, section: 7.1.1}
    statement: One text part is a plain string.
  - id: 7.1.7/model-from-agent
    level: MUST
    basis: pseudocode
    source: {seed: s7.txt, section: 7.1.7}
    statement: model is agent.model.id.
"""

GOOD = """\
cases:
  - id: wire.openai.chat.good
    kind: wire
    api: openai.chat
    rules: [7.1.1/single-text-part-is-string, 7.1.7/model-from-agent]
    agent: {model: {id: m}}
    messages: [{role: user, content: [{kind: text, value: Hi}]}]
    expect: {model: m, messages: [{role: user, content: Hi}]}
"""


def write_corpus(pytester: pytest.Pytester, **files: str) -> Path:
    root = pytester.path / "corpus"
    root.mkdir()
    (root / "rules.yaml").write_text(RULES)
    (root / "good.yaml").write_text(GOOD)
    for name, text in files.items():
        (root / f"{name}.yaml").write_text(textwrap.dedent(text))
    return root


def test_malformed_yaml_is_one_item_with_its_line(pytester, run_corpus):
    root = write_corpus(pytester, broken="cases:\n  - id: x\n    rules: [a\n  - id: y\n")
    run = run_corpus(target=root)
    assert run.outcomes == {"wire.openai.chat.good": "passed"}
    assert list(run.problems) == ["[file]"]
    assert f"{root / 'broken.yaml'}:4: [file]: not valid YAML" in run.problems["[file]"]


def test_unknown_field_names_the_field_and_its_line(pytester, run_corpus):
    root = write_corpus(
        pytester,
        typo="""\
        cases:
          - id: wire.openai.chat.typo
            kind: wire
            api: openai.chat
            rules: [7.1.7/model-from-agent]
            agent: {model: {id: m, options: {maxTokens: 5}}}
            messages: []
            expect: {model: m, messages: []}
        """,
    )
    run = run_corpus(target=root)
    assert run.outcomes == {"wire.openai.chat.good": "passed"}
    message = run.problems["wire.openai.chat.typo"]
    assert f"{root / 'typo.yaml'}:6:" in message
    assert "agent.model.options.maxTokens: unknown field 'maxTokens'" in message


def test_missing_expectation(pytester, run_corpus):
    root = write_corpus(
        pytester,
        noexpect="""\
        cases:
          - id: wire.openai.chat.no-expect
            kind: wire
            api: openai.chat
            rules: [7.1.7/model-from-agent]
            agent: {model: {id: m}}
        """,
    )
    run = run_corpus(target=root)
    assert (
        "missing expectation: give exactly one of `expect` or `expect_error`"
        in run.problems["wire.openai.chat.no-expect"]
    )
    assert f"{root / 'noexpect.yaml'}:2:" in run.problems["wire.openai.chat.no-expect"]


def test_duplicate_id_points_at_the_first(pytester, run_corpus):
    root = write_corpus(pytester, zdup=GOOD)
    run = run_corpus(target=root)
    assert run.outcomes == {"wire.openai.chat.good": "passed"}
    message = run.problems["wire.openai.chat.good[duplicate]"]
    assert f"{root / 'zdup.yaml'}:2:" in message
    assert f"first at {root / 'good.yaml'}:2" in message


def test_unknown_rule_is_named(pytester, run_corpus):
    root = write_corpus(
        pytester, badrule=GOOD.replace("good", "badrule").replace("7.1.7/model-from-agent", "7.1.7/nope")
    )
    run = run_corpus(target=root)
    assert "cites unknown rule(s) 7.1.7/nope" in run.problems["wire.openai.chat.badrule"]
    assert f"{root / 'badrule.yaml'}:5:" in run.problems["wire.openai.chat.badrule"]


def test_id_must_carry_kind_and_api(pytester, run_corpus):
    root = write_corpus(pytester, badid=GOOD.replace("wire.openai.chat.good", "openai-good"))
    run = run_corpus(target=root)
    assert "id 'openai-good' must start with 'wire.openai.chat.'" in run.problems["openai-good"]


def test_uncovered_rule_fails_the_coverage_item(pytester):
    root = write_corpus(pytester)
    (root / "good.yaml").write_text(GOOD.replace(", 7.1.7/model-from-agent", ""))
    result = pytester.runpytest(str(root), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*1 rule(s) of *rules.yaml have no case:*", "*7.1.7/model-from-agent*"])


def test_broken_catalogue_is_reported_with_its_line(pytester):
    root = write_corpus(pytester)
    (root / "rules.yaml").write_text(
        RULES.replace("level: MUST\n    basis: pseudocode", "level: MUSTN'T\n    basis: pseudocode")
    )
    result = pytester.runpytest(str(root), "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*the rule catalogue has problems:*", "*rules.yaml:8: rules?1?.level:*"])


def test_yaml_outside_a_corpus_is_not_collected(pytester):
    pytester.makefile(".yaml", stray="cases: [1, 2]")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_underscore_folders_hold_data_not_cases(pytester, run_corpus):
    root = write_corpus(pytester)
    (root / "_data").mkdir()
    (root / "_data" / "openapi.yaml").write_text("openapi: 3.0.0\n")
    run = run_corpus(target=root)
    assert run.outcomes == {"wire.openai.chat.good": "passed"} and not run.problems


def _yaml_files() -> list[Path]:
    from tests.conftest import REPO

    files = [*(REPO / "cases").rglob("*.yaml"), *(REPO / "cassettes").rglob("*.yaml")]
    # underscore folders hold data for cases (documents a runtime parses, some broken on purpose)
    return sorted(p for p in files if not any(part.startswith("_") for part in p.relative_to(REPO).parts))


@pytest.mark.parametrize("path", _yaml_files(), ids=lambda p: p.name[:50])
def test_files_read_the_same_without_libyaml(path):
    """libyaml accepts a few things the pure-Python parser rejects; the corpus must load on both."""
    import yaml

    from wireconf.core.yaml_source import load_yaml, to_plain

    text = path.read_text()
    assert yaml.load(text, Loader=yaml.SafeLoader) == to_plain(load_yaml(text))


def _bomb(levels: int) -> str:
    """An alias bomb: each anchor is a list of ten aliases of the one before (10**levels leaves)."""
    lines = ["x-0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, levels):
        aliases = ", ".join([f"*l{level - 1}"] * 10)
        lines.append(f"x-{level}: &l{level} [{aliases}]")
    return "\n".join(lines) + "\n"


def test_an_alias_that_contains_itself_is_refused_with_its_line():
    from wireconf.core.yaml_source import YamlRefused, load_yaml

    with pytest.raises(YamlRefused, match="refers to the node that contains it") as info:
        load_yaml("a: 1\nb: &loop\n  - x\n  - *loop\n")
    assert info.value.line == 2  # where the node that contains itself starts (its anchor)


@pytest.mark.parametrize("where", ["expect", "agent"])
def test_an_alias_bomb_is_refused_while_loading_naming_the_file_and_line(pytester, run_corpus, where):
    agent = f"*l{5}" if where == "agent" else "{model: {id: m}}"
    expect = f"*l{5}" if where == "expect" else "{model: m, messages: []}"
    bomb = _bomb(6) + textwrap.dedent(
        f"""\
        cases:
          - id: wire.openai.chat.bomb
            kind: wire
            api: openai.chat
            rules: [7.1.7/model-from-agent]
            agent: {agent}
            expect: {expect}
        """
    )
    root = write_corpus(pytester, bomb=bomb)
    run = run_corpus(target=root)
    assert run.outcomes == {"wire.openai.chat.good": "passed"}
    assert list(run.problems) == ["[file]"]
    assert f"{root / 'bomb.yaml'}:5: [file]: aliases expand this file" in run.problems["[file]"]
