"""Every MUST / MUST NOT rule has a mutant of the reference, and its own cases kill it."""

from __future__ import annotations

import pytest

from harness.cli import main
from harness.strength import strength
from tests.conftest import CASES

CASE = """\
cases:
  - id: wire.openai.chat.single
    kind: wire
    api: openai.chat
    rules:
      - 7.1.1/single-text-part-is-string
      - 7.1.1/role-copied
      - 7.1.1/metadata-merged
      - 7.1.1/multi-part-is-array
    agent: {model: {id: m}}
    messages: [{role: user, content: [{kind: text, value: Hi}]}]
    expect: {model: m, messages: [{role: user, content: Hi}]}
"""

RULES = """\
rules:
  - id: 7.1.1/single-text-part-is-string
    level: MUST
    basis: text
    source: {seed: s, section: 7.1.1}
    statement: One text part is a string.
    mutant:
      file: reference_impl/openai_chat/messages.py
      find: 'if len(content) == 1 and'
      replace: 'if False and'
  - id: 7.1.1/role-copied
    level: MUST
    basis: text
    source: {seed: s, section: 7.1.1}
    statement: A mutant that changes nothing survives.
    mutant:
      file: reference_impl/openai_chat/messages.py
      find: '    return wire'
      replace: '    return wire'
  - id: 7.1.1/metadata-merged
    level: MUST
    basis: text
    source: {seed: s, section: 7.1.1}
    statement: A rule without a mutant is listed as missing.
  - id: 7.1.1/multi-part-is-array
    level: MUST
    basis: text
    source: {seed: s, section: 7.1.1}
    statement: An edit that does not apply is reported, not run.
    mutant: {file: reference_impl/openai_chat/messages.py, find: 'no such text', replace: 'x'}
"""


def test_the_corpus_kills_every_mutant(capsys):
    assert main(["strength", str(CASES)]) == 0, capsys.readouterr().out
    assert "rules without a mutant: 0" in capsys.readouterr().out


def test_survivors_missing_and_stale_mutants_are_reported(tmp_path):
    (tmp_path / "rules.yaml").write_text(RULES)
    (tmp_path / "c.yaml").write_text(CASE)
    report = strength(tmp_path)
    status = {r.rule: r.status for r in report.results}
    assert status == {
        "7.1.1/single-text-part-is-string": "killed",
        "7.1.1/role-copied": "survived",
        "7.1.1/multi-part-is-array": "not-applied",
    }
    assert report.missing == ["7.1.1/metadata-merged"]
    assert not report.ok
    assert "occurs 0 times" in report.with_status("not-applied")[0].detail


@pytest.mark.parametrize("path", ["harness/cli.py", "../etc/passwd"])
def test_mutants_edit_only_the_reference(tmp_path, path):
    from harness.corpus.rules import Edit
    from harness.strength import apply_edits

    (tmp_path / "reference_impl").mkdir()
    with pytest.raises(ValueError, match="a mutant edits files of reference_impl/ only"):
        apply_edits(tmp_path / "reference_impl", [Edit(file=path, find="a", replace="b")])
