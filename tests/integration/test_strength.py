"""Every MUST / MUST NOT rule has a mutant of the reference, and its own cases kill it."""

from __future__ import annotations

import pytest

from tests.conftest import CASES
from wireconf.cli import main
from wireconf.maintenance.strength import strength

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
      - 7.1.1/string-content-kept
    agent: {model: {id: m}}
    messages: [{role: user, content: [{kind: text, value: Hi}]}]
    expect: {model: m, messages: [{role: user, content: Hi}]}
  - id: wire.openai.chat.wrong-expectation
    kind: wire
    api: openai.chat
    rules: [7.1.1/content-from-parts]
    agent: {model: {id: m}}
    messages: [{role: user, content: [{kind: text, value: Hi}]}]
    expect: {model: m, messages: [{role: user, content: Bye}]}
"""

RULES = """\
rules:
  - id: 7.1.1/single-text-part-is-string
    level: MUST
    basis: text
    source: {seed: s, section: 7.1.1}
    statement: One text part is a string.
    governs: [{subject: request, path: '$.messages[*].content', change: type}]
    mutant:
      file: wireconf/reference_impl/openai_chat/messages.py
      find: 'if len(content) == 1 and'
      replace: 'if False and'
  - id: 7.1.1/role-copied
    level: MUST
    basis: text
    source: {seed: s, section: 7.1.1}
    statement: A mutant that changes nothing survives.
    mutant:
      file: wireconf/reference_impl/openai_chat/messages.py
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
    mutant: {file: wireconf/reference_impl/openai_chat/messages.py, find: 'no such text', replace: 'x'}
  - id: 7.1.1/string-content-kept
    level: MUST
    basis: text
    source: {seed: s, section: 7.1.1}
    statement: A mutant whose failure names another rule (it declares no `governs`) is not a kill.
    mutant:
      file: wireconf/reference_impl/openai_chat/messages.py
      find: 'if len(content) == 1 and'
      replace: 'if False and'
  - id: 7.1.1/content-from-parts
    level: MUST
    basis: text
    source: {seed: s, section: 7.1.1}
    statement: A case that fails against the reference itself kills nothing.
    governs: [{subject: request, path: '$.messages[*].content', change: type}]
    mutant:
      file: wireconf/reference_impl/openai_chat/messages.py
      find: 'if len(content) == 1 and'
      replace: 'if False and'
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
        "7.1.1/content-from-parts": "error",
        "7.1.1/string-content-kept": "unattributed",
    }
    assert report.missing == ["7.1.1/metadata-merged"]
    assert not report.ok
    assert "occurs 0 times" in report.with_status("not-applied")[0].detail
    # a failing case is a kill only where it passes against the unmutated reference
    assert report.with_status("error")[0].detail == (
        "wire.openai.chat.wrong-expectation fails against the unmutated reference too, "
        "not only under the mutant"
    )
    assert report.with_status("killed")[0].detail == "by wire.openai.chat.single"
    # killed, but by a failure that names another rule: the rule's `governs` does not declare the diff
    assert report.with_status("unattributed")[0].detail == (
        "killed by wire.openai.chat.single, but no failure names the rule (they name "
        "7.1.1/single-text-part-is-string): its `governs` does not declare the difference"
    )


def test_a_mutant_the_provider_reads_alike_is_equivalent_under_interop_only(tmp_path):
    """The mutant sends one text part as a one-block array: a failure under full, representation under
    interop (openai.chat's equivalence content-one-text-part), counted apart, not as a survivor."""
    rule = "7.1.1/single-text-part-is-string"
    (tmp_path / "c.yaml").write_text(CASE)
    # a rule that does not say the provider reads its deviation alike: a survivor, the corpus's gap
    (tmp_path / "rules.yaml").write_text(RULES)
    (undeclared,) = strength(tmp_path, [rule], profile="interop").results
    assert undeclared.status == "survived", undeclared
    assert "the rule does not say so" in undeclared.detail
    said = "    statement: One text part is a string.\n"
    assert said in RULES
    (tmp_path / "rules.yaml").write_text(
        RULES.replace(
            said, said + "    provider_equivalent: one text part as an array of one, the same request\n"
        )
    )
    (interop,) = strength(tmp_path, [rule], profile="interop").results
    assert interop.status == "equivalent", interop
    assert "wire.openai.chat.single" in interop.detail
    report = strength(tmp_path, [rule], profile="full")
    assert [r.status for r in report.results] == ["killed"]
    assert "provider-equivalent" not in report.summary()


# the first rule of RULES (its mutant makes the content a list, a difference both rules declare), then a
# rule whose own mutant changes the role, which its governs does not declare
LEAK_RULES = (
    RULES[: RULES.index("  - id: 7.1.1/role-copied")]
    + """\
  - id: 7.1.1/role-copied
    level: MUST
    basis: text
    source: {seed: s, section: 7.1.1}
    statement: Its mutant changes the role, a difference its governs does not declare.
    governs: [{subject: request, path: '$.messages[*].content', change: type}]
    mutant:
      file: wireconf/reference_impl/openai_chat/messages.py
      find: 'wire: dict[str, Any] = {"role": message["role"]}'
      replace: 'wire: dict[str, Any] = {"role": "x" + message["role"]}'
"""
)


def test_a_later_mutant_is_judged_on_its_own_differences(tmp_path):
    """The same case runs once per mutant: the differences an earlier mutant's run recorded (which name
    the later rule too) must not count as the later mutant's."""
    (tmp_path / "rules.yaml").write_text(LEAK_RULES)
    (tmp_path / "c.yaml").write_text(
        CASE.replace(
            "      - 7.1.1/metadata-merged\n      - 7.1.1/multi-part-is-array\n"
            "      - 7.1.1/string-content-kept\n",
            "",
        )
    )
    report = strength(tmp_path, jobs=1)
    status = {r.rule: r.status for r in report.results}
    assert status == {"7.1.1/single-text-part-is-string": "killed", "7.1.1/role-copied": "unattributed"}


@pytest.mark.parametrize("path", ["wireconf/cli.py", "../etc/passwd"])
def test_mutants_edit_only_the_reference(tmp_path, path):
    from wireconf.corpus.rules import Edit
    from wireconf.maintenance.strength import apply_edits

    (tmp_path / "reference_impl").mkdir()
    with pytest.raises(ValueError, match="a mutant edits files of wireconf/reference_impl/ only"):
        apply_edits(tmp_path / "reference_impl", [Edit(file=path, find="a", replace="b")])


PROBE = """\
import importlib, json, sys
from wireconf.corpus.rules import Edit
from wireconf.maintenance.strength import _CopyFinder, _PackageCopy

copy = _PackageCopy(__import__("pathlib").Path(sys.argv[2]), __import__("pathlib").Path(sys.argv[1]))
sys.meta_path.insert(0, _CopyFinder(copy.root))
seen = []
for edits in json.loads(sys.argv[3]):
    copy.mutate([Edit(**e) for e in edits])
    for name in [m for m in sys.modules if m.startswith("wireconf.reference_impl")]:
        del sys.modules[name]
    module = importlib.import_module("wireconf.reference_impl.consts")
    assert module.__file__.startswith(sys.argv[1]), module.__file__
    seen.append([module.X, importlib.import_module("wireconf.reference_impl.user").TWICE])
print(json.dumps(seen))
"""


def _probe_mutants(tmp_path, probe: str, modules: dict[str, str], bytecode: bool = False) -> list:
    """Four mutants of one edit (``X = 1`` in ``consts.py``: 2, 3, none, 4) of a small ``reference_impl``
    made of ``consts.py`` and ``modules``, run one after another by ``probe`` in a fresh interpreter;
    what it printed for each."""
    import json
    import os
    import subprocess
    import sys

    from tests.conftest import REPO

    source = tmp_path / "src" / "reference_impl"
    source.mkdir(parents=True)
    (tmp_path / "work").mkdir()
    (source / "__init__.py").write_text("")
    (source / "consts.py").write_text("X = 1\n")
    for name, text in modules.items():
        (source / name).write_text(text)
    edit = {"file": "wireconf/reference_impl/consts.py", "find": "X = 1"}
    runs = [
        [{**edit, "replace": "X = 2"}],
        [{**edit, "replace": "X = 3"}],
        [],
        [{**edit, "replace": "X = 4"}],
    ]
    env = {k: v for k, v in os.environ.items() if not bytecode or k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "work"), str(source), json.dumps(runs)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (source / "consts.py").read_text() == "X = 1\n"  # the source itself is never edited
    return json.loads(done.stdout)


USER = "from wireconf.reference_impl.consts import X\nTWICE = 2 * X\n"


def test_each_mutant_runs_on_the_pristine_package_with_only_its_own_edits(tmp_path):
    """The worker keeps one compiled copy and rewrites only edited files; mutants that follow each other
    within a second with edits of the same size must still each run their own code (bytecode checked
    by the source's hash, never reused because of an unchanged size and modification second)."""
    seen = _probe_mutants(tmp_path, PROBE, {"user.py": USER}, bytecode=True)  # bytecode is written
    assert seen == [[2, 4], [3, 6], [1, 2], [4, 8]]


GRAPH_PROBE = """\
import importlib, json, sys
from pathlib import Path
from wireconf.corpus.rules import Edit
from wireconf.maintenance.strength import _CopyFinder, _ImportGraph, _PackageCopy

copy = _PackageCopy(Path(sys.argv[2]), Path(sys.argv[1]))
sys.meta_path.insert(0, _CopyFinder(copy.root))
graph = _ImportGraph(copy.root)
import wireconf.reference_impl.user, wireconf.reference_impl.via_package, wireconf.reference_impl.unrelated
seen = []
for edits in json.loads(sys.argv[3]):
    unrelated = sys.modules["wireconf.reference_impl.unrelated"]
    copy.mutate([Edit(**e) for e in edits])
    graph.forget(copy.changed)
    copy.changed.clear()
    via = importlib.import_module("wireconf.reference_impl.via_package")  # first: nothing imported consts yet
    user = importlib.import_module("wireconf.reference_impl.user")
    kept = importlib.import_module("wireconf.reference_impl.unrelated") is unrelated
    seen.append([user.TWICE, via.Y, kept])
print(json.dumps(seen))
"""


def test_a_mutant_imports_again_exactly_what_its_edits_reach(tmp_path):
    """The modules that import an edited one (directly, or through ``from package import module``, which
    a kept package would otherwise answer with the old module) are imported again; the others are kept."""
    modules = {
        "user.py": USER,
        "via_package.py": "from wireconf.reference_impl import consts\nY = consts.X\n",
        "unrelated.py": "Z = 0\n",
    }
    seen = _probe_mutants(tmp_path, GRAPH_PROBE, modules)
    assert seen == [[4, 2, True], [6, 3, True], [2, 1, True], [8, 4, True]]
