"""Explanations proved by their reproduction (issue 36, item 4): the proofs file, what proves an
explanation, the findings page's mark and figures, and ``wireconf.repro.verify``'s run of a script (a
real fork of this process, a real profile hook)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import CASES
from wireconf.corpus.rules import load_catalogue
from wireconf.reports.findings import EXPLANATIONS, PROVED, render_findings
from wireconf.reports.findings_proofs import (
    Proof,
    ProofsError,
    dump_proofs,
    load_proofs,
    named_functions,
    text_hash,
)
from wireconf.reports.jsonl import CaseRecord
from wireconf.repro.verify import run_script

RULE = "8.5/arguments-compact-json"
EXPLANATION = (
    "`pkg.mod:Config.transform` writes arguments with `json.dumps` (spaces); `pkg.mod:dump` does so too."
)


def test_the_functions_an_explanation_names_are_its_module_colon_qualname_spans():
    assert named_functions(EXPLANATION) == ["pkg.mod:Config.transform", "pkg.mod:dump"]  # not `json.dumps`
    assert named_functions("repeats the diff") == []


def _proof(**changes: object) -> Proof:
    fields = {
        "case": "c",
        "rule": RULE,
        "place": "$[*].arguments",
        "exit": 1,
        "shown": True,
        "explanation": text_hash(EXPLANATION),
        "called": {"pkg.mod:Config.transform": True, "pkg.mod:dump": True},
    }
    return Proof(**{**fields, **changes})  # type: ignore[arg-type]


def test_a_proof_holds_for_its_text_when_the_deviation_showed_through_every_named_function():
    assert _proof().proves(EXPLANATION)
    assert not _proof().proves(EXPLANATION + " Rewritten.")  # made for another text
    assert not _proof(exit=0).proves(EXPLANATION)  # the runtime no longer deviates
    assert not _proof(exit=2).proves(EXPLANATION)  # not reproduced
    assert not _proof(shown=False).proves(EXPLANATION)
    assert not _proof(called={"pkg.mod:Config.transform": True, "pkg.mod:dump": False}).proves(EXPLANATION)
    assert not _proof(called={}).proves(EXPLANATION)  # names no function: nothing to prove


def test_proofs_are_written_and_read_back_by_version_case_rule_and_place(tmp_path):
    path = tmp_path / "proofs" / "rt.yaml"
    path.parent.mkdir()
    path.write_text(dump_proofs("rt", "1.0", [_proof(case="z"), _proof(case="a")]), encoding="utf-8")
    found = load_proofs(path)
    assert list(found) == [("1.0", "a", RULE, "$[*].arguments"), ("1.0", "z", RULE, "$[*].arguments")]
    assert found[("1.0", "a", RULE, "$[*].arguments")] == _proof(case="a")
    assert load_proofs(tmp_path / "none.yaml") == {}
    path.write_text("runtime: rt\nproofs: []\n", encoding="utf-8")  # no version
    with pytest.raises(ProofsError, match=r"rt\.yaml: not a proofs file"):
        load_proofs(path)


def _record(case_id: str) -> CaseRecord:
    difference = {
        "subject": "result",
        "path": "$[0].arguments",
        "change": "value",
        "text": '$[0].arguments: expected "{}", got "{ }"',
        "signature": "result $[*].arguments: value",
        "rules": [RULE],
        "basis": "declared",
        "tier": "spec",
    }
    record = CaseRecord(
        "rt", "1.0", case_id, "process", "anthropic.messages", [RULE], "failed", 0.0, "expected",
        f"{RULE}: {EXPLANATION}", difference["text"], differences=[difference], tier="spec",
    )  # fmt: skip
    record.extra[EXPLANATIONS] = {}
    return record


def test_the_page_marks_a_proved_explanation_and_counts_reproductions_and_proofs():
    catalogue = load_catalogue(CASES / "rules.yaml")
    records = [_record("case.a"), _record("case.b")]
    always = lambda record, difference: True  # noqa: E731 - every difference has a script here
    proofs = {"rt": {("1.0", "case.a", RULE, "$[*].arguments"): _proof(case="case.a")}}
    page = render_findings(records, catalogue, [], "wireconf findings", 2, reproducible=always, proofs=proofs)
    assert EXPLANATION + PROVED in page
    assert "Of the 1 by difference, 1 have a reproduction; 1 of the 1 explained are proved by it." in page
    assert "Root causes by difference: 1; 1 with a reproduction" in page and "1 explanations proved" in page
    unproved = render_findings(records, catalogue, [], "wireconf findings", 2, reproducible=always, proofs={})
    assert PROVED not in unproved and "0 of the 1 explained are proved by it" in unproved


SCRIPT = """import sys
sys.path.insert(0, {folder!r})
import blamed

blamed.Config().transform()
print("8.5/arguments-compact-json: compact")
sys.exit({code})
"""

BLAMED = """class Config:
    def transform(self):
        return helper()


def helper():
    return 1


def never():
    return 2
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the verification forks")
def test_a_verified_run_records_its_exit_and_which_named_functions_ran(tmp_path):
    (tmp_path / "blamed.py").write_text(BLAMED, encoding="utf-8")
    script = tmp_path / "repro.py"
    script.write_text(SCRIPT.format(folder=str(tmp_path), code=1), encoding="utf-8")
    names = ["blamed:Config.transform", "blamed:Config", "blamed:helper", "blamed:never"]
    run = run_script(script, names)
    assert run.exit == 1 and "8.5/arguments-compact-json: compact" in run.output
    assert run.called == {"blamed:Config.transform", "blamed:Config", "blamed:helper"}  # a class: its method
    script.write_text("import time\ntime.sleep(30)\n", encoding="utf-8")
    assert run_script(script, [], timeout=1).exit == 2  # ran past its time: not reproduced
