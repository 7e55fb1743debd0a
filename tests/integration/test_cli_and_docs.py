"""The wireconf command, and docs that must stay true: the rendered catalogue, README ↔ .ci/run."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
import yaml

from tests.conftest import CASES, REPO
from wireconf.cli import main
from wireconf.corpus.rules_doc import render_markdown
from wireconf.kinds.registry import open_corpus
from wireconf.pytest_plugin import options


def test_lint_passes_on_the_corpus(capsys):
    assert main(["lint", str(CASES)]) == 0
    assert capsys.readouterr().out.strip().endswith(": ok")


def test_lint_reports_problems_and_fails(tmp_path, capsys):
    (tmp_path / "rules.yaml").write_text(
        "rules:\n  - {id: a.1/x, level: MUST, basis: text, source: {seed: s, section: a.1}, statement: s}\n"
    )
    (tmp_path / "c.yaml").write_text("cases:\n  - {id: nope}\n")
    assert main(["lint", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "c.yaml:2: nope: invalid case" in out and "rule a.1/x has no case" in out


def test_schema_validates_every_case_file(capsys):
    jsonschema = pytest.importorskip("jsonschema")
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    validator = jsonschema.Draft202012Validator(schema)
    for path in sorted(CASES.rglob("*.yaml")):
        if path.name != "rules.yaml" and not any(p.startswith("_") for p in path.relative_to(CASES).parts):
            validator.validate(yaml.safe_load(path.read_text()))
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(
            {
                "cases": [
                    {
                        "id": "wire.openai.chat.x",
                        "kind": "wire",
                        "api": "openai.chat",
                        "rules": ["r"],
                        "agent": {"model": {"id": "m", "options": {"maxTokens": 1}}},
                        "expect": {},
                    }
                ]
            }
        )


def test_rules_doc_is_up_to_date():
    assert (REPO / "docs" / "rules.md").read_text() == render_markdown(open_corpus(CASES)), (
        "docs/rules.md is stale: run `wireconf rules --markdown > docs/rules.md`"
    )


def _readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    return re.findall(r"```sh\n(.*?)```", text.split("## Quick start", 1)[1], re.S)[:2]


def test_ci_runs_the_readme_test_command():
    setup, tests = (block.strip() for block in _readme_commands())
    ci = (REPO / ".ci" / "run").read_text()
    commands = [
        line.strip() for line in ci.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    assert commands[-1] == tests, "the last thing .ci/run does must be README.md's test command, exactly"
    assert "pytest cases" in setup


# every install .ci/run makes before the tests (a line of it that installs), and how README.md's Quick
# start names it
CI_INSTALLS = {
    "apt-get install -y -qq chromium": "Chromium",
    "apt-get install -y -qq nodejs npm": "Node.js",
    "wireconf prompty-ts build": "wireconf prompty-ts build",
    "wireconf ai-sdk build": "wireconf ai-sdk build",
    "wireconf findings --make-envs": "wireconf findings --make-envs",
    "pip install --quiet --upgrade pip": "Set up a fresh machine (Python 3.11 with pip)",
    "pip install --quiet -e '.[dev]'": "pip install -e '.[dev]'",
}


def test_the_readme_names_every_install_of_ci_run():
    """README.md says what its two commands install and what .ci/run installs besides: nothing is
    downloaded that the page does not name."""
    ci = (REPO / ".ci" / "run").read_text()
    quick_start = (REPO / "README.md").read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    for line in ci.splitlines():
        if "install" in line and not line.lstrip().startswith("#") and "could not be installed" not in line:
            assert any(step in line for step in CI_INSTALLS), (
                f".ci/run installs what CI_INSTALLS omits: {line}"
            )
    for step, name in CI_INSTALLS.items():
        assert step in ci, f".ci/run no longer runs `{step}`: update CI_INSTALLS"
        assert name in quick_start, f"README.md's Quick start does not name {name} (.ci/run: {step})"


def test_console_script_is_installed():
    out = subprocess.run(
        [sys.executable, "-m", "wireconf.cli", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("wireconf ")


def _readme_row(name: str) -> str:
    text = (REPO / "README.md").read_text()
    match = re.search(rf"^\| {name} \| (.+) \|$", text, re.M)
    assert match, f"README.md's coverage table has no `{name}` row"
    return match.group(1)


def test_readme_coverage_figures_are_true():
    corpus = open_corpus(CASES)
    rules = corpus.catalogue.rules.values()
    cases = list(corpus.cases())
    on_traffic = [c for c in cases if "cassette" in json.dumps(c.raw, default=str)]
    cassettes = list((REPO / "cassettes").rglob("*.yaml"))
    tiers = {tier: sum(r.tier == tier for r in rules) for tier in ("spec", "vectors", "project")}
    assert _readme_row("rules").startswith(
        f"{len(rules)} ({tiers['spec']} from the specification's text, {tiers['vectors']} decided by "
        f"Prompty's vectors, {tiers['project']} project decisions)"
    ), "README.md's rule count is stale"
    assert _readme_row("cases").startswith(
        f"{len(cases)}, {len(on_traffic)} of them on imported real provider traffic "
        f"({len(cassettes)} cassettes)"
    ), "README.md's case counts are stale"
    kinds = {f"`{c.kind}`" for c in cases}
    apis = {f"`{c.api}`" for c in cases}
    assert set(re.findall(r"`[a-z0-9_.]+`", _readme_row("apis"))) == apis
    assert set(re.findall(r"`[a-z0-9_]+`", _readme_row("kinds"))) - {"`process_async`"} == kinds
    mutants = sum(r.mutant is not None for r in rules)
    assert _readme_row("mutants").startswith(f"{mutants} of {mutants} "), "README.md's mutant count is stale"


def _arguments(parser, path=("wireconf",)):
    """Every (command path, argument) of the parser and its subcommands' parsers."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _arguments(sub, (*path, name))
        elif not isinstance(action, argparse._HelpAction):
            yield " ".join(path), action


def test_every_argument_of_every_command_has_help():
    from wireconf.cli import build_parser

    seen = list(_arguments(build_parser()))
    assert {command for command, _ in seen} >= {
        "wireconf lint",
        "wireconf rules",
        "wireconf strength",
        "wireconf ci",
    }
    missing = [
        f"{command} {action.option_strings or action.dest}" for command, action in seen if not action.help
    ]
    assert not missing, f"arguments without help text: {missing}"


@pytest.mark.parametrize("command", ["lint", "rules", "strength", "findings --cases"])
def test_a_corpus_that_is_not_there_is_a_one_line_error(tmp_path, capsys, command):
    missing = tmp_path / "nowhere"
    assert main([*command.split(), str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == f"wireconf {command.split()[0]}: no corpus at {missing}: no such folder\n"


def test_the_corpus_commands_default_to_the_installed_corpus(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no cases/ here
    assert main(["lint"]) == 0
    assert capsys.readouterr().out.strip().endswith(": ok")
    assert main(["rules"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(open_corpus(CASES).catalogue.rules)


def test_a_closed_pipe_ends_the_command_quietly():
    proc = subprocess.Popen(
        [sys.executable, "-m", "wireconf.cli", "rules", "--markdown"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before the first line (`wireconf rules | head -0`)
    err = proc.stderr.read().decode()
    assert proc.wait() == 141 and err == ""


class _Options:
    """Stands in for pytest's parser: notes the options each group defines."""

    def __init__(self) -> None:
        self.groups: dict[str, list[str]] = {}

    def getgroup(self, name: str, description: str = "") -> _Options:
        self._group = self.groups.setdefault(name, [])
        return self

    def addoption(self, *names: str, **settings: object) -> None:
        self._group.extend(names)


def test_every_plugin_option_is_in_a_readme_options_table(monkeypatch):
    monkeypatch.setattr(options, "owned_by_pytest_recording", lambda: False)
    parser = _Options()
    options.add_options(parser)  # type: ignore[arg-type]
    readme = (REPO / "README.md").read_text()
    rows = set(re.findall(r"^\| `(--[a-z-]+)", readme, re.M))
    defined = {name for names in parser.groups.values() for name in names}
    assert {"--kind", "--api", "--wireconf", "--baseline"} <= defined
    # --record-mode has its own section (recording with real keys)
    assert defined - {"--record-mode"} <= rows, "options missing from README.md's tables"
    assert "--record-mode" in readme


def test_lint_refuses_a_cassette_reference_that_leaves_the_cassettes_folder(tmp_path, capsys):
    """Wherever a case names a cassette (here an extract payload, which runs only as that kind's case
    does), a name that climbs out of the cassettes folder is a problem of the file, at its line."""
    corpus = tmp_path / "cases"
    corpus.mkdir()
    (corpus / "rules.yaml").write_text((CASES / "rules.yaml").read_text())
    source = (CASES / "extract" / "anthropic.messages" / "real-traffic.yaml").read_text()
    name = "anthropic/anthropic__01__logfire__test_sync_messages_version_latest_i0"
    (corpus / "extract.yaml").write_text(
        source.replace(f"request: {{cassette: {name}}}", "request: {cassette: ../../x}", 1)
    )
    assert main(["lint", str(corpus), "--cassettes", str(REPO / "cassettes")]) == 1
    out = capsys.readouterr().out
    line = next(
        n for n, text in enumerate((corpus / "extract.yaml").read_text().splitlines(), 1) if "../../x" in text
    )
    case_id = "extract.anthropic.messages.real-text-with-system-prompt"
    assert f"extract.yaml:{line}: {case_id}: cassette name '../../x'" in out
    assert out.count("../../x") == 1  # the other references of the file are fine
