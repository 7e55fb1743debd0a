"""Explanations proved by their reproduction (issue 36, item 4): the proofs file, what proves an
explanation, the findings page's mark and figures, and ``wireconf.repro.verify``'s run of a script (a
real fork of this process, a real profile hook)."""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

from tests.conftest import CASES
from wireconf.corpus.rules import load_catalogue
from wireconf.reports.findings import EXPLANATIONS, NOT_PROVED, PROVED, render_findings
from wireconf.reports.findings_proofs import (
    Proof,
    ProofsError,
    dump_proofs,
    load_impl_proofs,
    load_proofs,
    named_functions,
    text_hash,
)
from wireconf.reports.jsonl import CaseRecord
from wireconf.repro.verify import _covered, run_node, run_script, samples_of, warm

RULE = "8.5/arguments-compact-json"
EXPLANATION = (
    "`pkg.mod:Config.transform` writes arguments with `json.dumps` (spaces); `pkg.mod:dump` does so too."
)


def test_the_functions_an_explanation_names_are_its_module_colon_qualname_spans():
    assert named_functions(EXPLANATION) == ["pkg.mod:Config.transform", "pkg.mod:dump"]  # not `json.dumps`
    assert named_functions("repeats the diff") == []
    javascript = "`@ai-sdk/anthropic` `Model.getArgs` builds it, through `ai` `generateText`; `x` alone"
    assert named_functions(javascript) == ["@ai-sdk/anthropic:Model.getArgs", "ai:generateText"]
    python = "`pkg.mod:to_part` writes it as a `google.genai` `Blob`"  # a type, not a function
    assert named_functions(python, javascript=False) == ["pkg.mod:to_part"]
    assert named_functions(python) == ["pkg.mod:to_part", "google.genai:Blob"]


def test_v8s_coverage_names_a_function_that_ran_in_the_named_package_only(tmp_path):
    def script(url, name, count):
        return {"url": url, "functions": [{"functionName": name, "ranges": [{"count": count}]}]}

    base = "file:///x/node_modules"
    coverage = {
        "result": [
            script(f"{base}/@ai-sdk/anthropic/dist/index.mjs", "getArgs", 2),  # a method: by its own name
            script(f"{base}/@ai-sdk/openai/dist/index.mjs", "prepareTools", 1),  # another package's
            script(f"{base}/ai/dist/index.mjs", "generateText", 0),  # compiled, never called
        ]
    }
    (tmp_path / "coverage-1.json").write_text(json.dumps(coverage), encoding="utf-8")
    names = ["@ai-sdk/anthropic:Model.getArgs", "@ai-sdk/anthropic:prepareTools", "ai:generateText"]
    assert _covered(tmp_path, names) == {"@ai-sdk/anthropic:Model.getArgs"}


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


def test_the_proofs_of_runtimes_judged_through_one_adapter_are_read_together_by_its_name(tmp_path):
    """luthien's two commits are two runtimes of runtimes.yaml and one adapter (``luthien``): each proofs
    file names its ``impl``, and the page reads both under it; another adapter's file (prompty-ts beside
    prompty) is never read."""
    folder = tmp_path / "proofs"
    folder.mkdir()
    (folder / "lu-a.yaml").write_text(
        dump_proofs("lu-a", "0.1+a", [_proof(case="x")], "lu"), encoding="utf-8"
    )
    (folder / "lu-b.yaml").write_text(
        dump_proofs("lu-b", "0.1+b", [_proof(case="y")], "lu"), encoding="utf-8"
    )
    (folder / "lu-ts.yaml").write_text(dump_proofs("lu-ts", "0.1+a", [_proof(case="z")]), encoding="utf-8")
    assert "impl: lu\n" in (folder / "lu-a.yaml").read_text(encoding="utf-8")
    assert "impl:" not in (folder / "lu-ts.yaml").read_text(encoding="utf-8")  # its own name
    found = load_impl_proofs(tmp_path, "lu")
    assert sorted(key[:2] for key in found) == [("0.1+a", "x"), ("0.1+b", "y")]
    assert list(load_impl_proofs(tmp_path, "lu-ts")) == [("0.1+a", "z", RULE, "$[*].arguments")]


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
    assert (
        "Root causes: 1 by difference, 1 explained (1 proved by their reproduction). Of the 1 by difference,"
        " 1 have a reproduction (1 run by `wireconf repro --verify` and failing as their finding says)."
        in page
    )
    assert "| rt 1.0 | 0 | 2 | 0 | 0 | 0 | 1 | 1 | 1 (1 proved) |" in page  # the same notion, the same count
    assert "Root causes by difference: 1; 1 with a reproduction" in page
    assert "of which 1 were run by" in page and "1 explained, 1 of those explanations proved" in page
    unproved = render_findings(records, catalogue, [], "wireconf findings", 2, reproducible=always, proofs={})
    assert PROVED not in unproved and "(0 run by" in unproved and "1 explained (0 proved" in unproved
    assert f"| {NOT_PROVED}{EXPLANATION} |" in unproved  # an explanation not proved says so, in its row
    assert "| rt 1.0 | 0 | 2 | 0 | 0 | 0 | 1 | 1 | 1 (0 proved) |" in unproved


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


LAZY = """def call():
    from lazy_part import VALUE  # loaded on the first call, as an SDK's resources are
    return VALUE
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the warm-up forks")
def test_the_warm_up_imports_what_a_run_of_a_script_loads_lazily_not_only_its_import_lines(
    tmp_path, monkeypatch
):
    (tmp_path / "lazy_top.py").write_text(LAZY, encoding="utf-8")
    (tmp_path / "lazy_part.py").write_text("VALUE = 1\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("lazy_top", "lazy_part"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    script = "import lazy_top\n\nlazy_top.call()\nraise SystemExit(1)\n"
    warm([script])
    assert "lazy_top" in sys.modules and "lazy_part" not in sys.modules  # the import lines alone
    warm([script], samples_of([("wire.openai.chat.a", script), ("wire.openai.chat.b", "raise SystemExit")]))
    assert "lazy_part" in sys.modules  # what the sample's run loaded, imported before the forks


def test_the_warm_up_samples_one_script_per_kind_and_api():
    scripts = [("wire.openai.chat.a", "A"), ("wire.openai.chat.b", "B"), ("process.anthropic.x.c", "C")]
    assert samples_of(scripts) == ["A", "C"]


def test_a_node_run_records_its_exit_and_which_named_functions_ran_by_v8s_coverage(tmp_path):
    if shutil.which("node") is None:
        pytest.skip("node (Node.js) is not on PATH")
    package = tmp_path / "node_modules" / "blamed"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "blamed", "type": "module", "main": "index.js"}')
    (package / "index.js").write_text(
        "export class Model { getArgs() { return 1; } }\nexport function never() { return 2; }\n"
    )
    script = tmp_path / "repro.mjs"
    script.write_text(
        'import { Model } from "blamed";\nnew Model().getArgs();\n'
        'console.log("rule: shown");\nprocess.exit(1);\n'
    )
    run = run_node(script, ["blamed:Model.getArgs", "blamed:never"])
    assert (run.exit, run.output.strip(), run.called) == (1, "rule: shown", {"blamed:Model.getArgs"})
