"""The CI recipe: the composite action's script part run as GitHub would run it (its env, its shell
script, its outputs), and docs/ci.md's workflows checked against the action and the commands."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import CASES, REPO
from wireconf.cli import build_parser
from wireconf.corpus.identity import declared_version

ACTION = yaml.safe_load((REPO / "action.yml").read_text())
STEPS = {step.get("id") or step["name"]: step for step in ACTION["runs"]["steps"]}
DOC = (REPO / "docs" / "ci.md").read_text()
FAKE = "tests.fakes.sends_max_tokens:adapter"
INPUT = re.compile(r"^\$\{\{ inputs\.([a-z-]+) \}\}$")


def _ci_options() -> dict[str, str]:
    """``wireconf ci``'s options, by the environment variable each defaults to."""
    parser = build_parser()._subparsers._group_actions[0].choices["ci"]  # type: ignore[union-attr]
    options = {}
    for action in parser._actions:
        match = re.search(r"\((WIRECONF_[A-Z_]+)", action.help or "")
        if match:
            options[match.group(1)] = action.option_strings[0]
    return options


def test_every_input_reaches_a_wireconf_ci_option():
    env = STEPS["run"]["env"]
    options = _ci_options()
    passed = {}
    for name, value in env.items():
        match = INPUT.match(value)
        assert match, f"{name}: {value!r} is not an input"
        assert match.group(1) in ACTION["inputs"], f"{name} reads an input the action does not declare"
        assert name in options, f"{name} is not read by `wireconf ci` (known: {sorted(options)})"
        passed[match.group(1)] = name
    # every input is handed over, but the two the action itself acts on
    assert set(ACTION["inputs"]) - set(passed) == {"install", "artifact-name"}
    assert "run: python -m wireconf.cli ci" in (REPO / "action.yml").read_text()


def _step(name: str, inputs: dict[str, str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run one of the action's shell steps as the runner would: its env with the inputs filled in."""
    step = STEPS[name]
    values = {**{k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}, **inputs}
    step_env = {k: INPUT.sub(lambda m: values[m.group(1)], v) for k, v in step.get("env", {}).items()}
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "WIRECONF_"))}
    base["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{base.get('PATH', '')}"
    base["PYTHONPATH"] = str(REPO)  # the fake runtime lives in the tests
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=tmp_path,
        env={**base, **step_env, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


@pytest.fixture
def github(tmp_path):
    return {
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }


def test_the_action_runs_a_job_reports_it_and_gates_on_its_baseline(tmp_path, github):
    baseline = tmp_path / "conformance" / "fake.yaml"
    baseline.parent.mkdir()
    baseline.write_text("impl: sends-max-tokens\nexpected_failures: {}\npassed: {}\n")
    inputs = {
        "impl": FAKE,
        "baseline": str(baseline),
        "pytest-args": "-p no:cacheprovider --kind=wire --api=openai.chat",
        "shard": "1/2",
    }
    done = _step("run", inputs, tmp_path, **github)
    assert done.returncode == 0, done.stderr  # the step itself passes: the upload must still run
    outputs = _outputs(tmp_path / "output.txt")
    assert outputs["exit-code"] == "1"  # new failures fail the job by default
    name = (
        f"tests.fakes.sends_max_tokens_adapter-py{sys.version_info.major}.{sys.version_info.minor}-shard1of2"
    )
    assert outputs["report"] == f"wireconf-out/{name}.jsonl"
    for key in ("report", "junit", "html"):
        assert (tmp_path / outputs[key]).is_file(), key
    summary = (tmp_path / "summary.md").read_text()
    assert "## wireconf conformance" in summary and "(**new**)" in summary
    assert "wireconf ci: " in done.stdout and "--shard=1/2" in done.stdout

    gate = _step("Gate", {}, tmp_path, EXIT_CODE=outputs["exit-code"])
    assert gate.returncode == 1
    assert _step("Gate", {}, tmp_path, EXIT_CODE="").returncode == 1  # no status: never a silent pass

    (tmp_path / "output.txt").unlink()
    allowed = _step("run", {**inputs, "allow-new-failures": "true"}, tmp_path, **github)
    assert allowed.returncode == 0
    assert _outputs(tmp_path / "output.txt")["exit-code"] == "0"
    assert _step("Gate", {}, tmp_path, EXIT_CODE="0").returncode == 0

    # the fan-in job: every job's report merged into one summary, JUnit file and page
    (tmp_path / "output.txt").unlink()
    inputs = {"merge": "wireconf-out/*.jsonl", "out": "merged"}
    merged = _step("run", inputs, tmp_path, **github)
    assert merged.returncode == 0, merged.stderr
    outputs = _outputs(tmp_path / "output.txt")
    assert outputs["exit-code"] == "0" and Path(tmp_path / outputs["html"]).is_file()
    assert "merged 1 report(s)" in merged.stdout
    missing = _step("run", {"merge": "nowhere/*.jsonl"}, tmp_path, **github)
    assert "matches no report file" in missing.stderr
    assert _outputs(tmp_path / "output.txt")["exit-code"] == "2"


def _yaml_blocks() -> list[dict]:
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", DOC, re.S)]


def test_the_documented_workflows_use_the_action_as_declared():
    documented = [b for b in _yaml_blocks() if isinstance(b, dict) and "jobs" in b]
    workflows = [  # the runtime maintainer's workflows; the findings matrix is the project's own
        w
        for w in documented
        if any("wireconf@" in step.get("uses", "") for job in w["jobs"].values() for step in job["steps"])
    ]
    assert len(workflows) == 2
    (matrix,) = [w for w in documented if w not in workflows]
    runs = [step["run"] for job in matrix["jobs"].values() for step in job["steps"] if "run" in step]
    assert any("wireconf findings" in run and "--shard" in run for run in runs), runs
    assert any("--from-reports" in run for run in runs), runs
    uses = [
        step
        for workflow in workflows
        for job in workflow["jobs"].values()
        for step in job["steps"]
        if "wireconf@" in step.get("uses", "")
    ]
    assert len(uses) == 3
    for step in uses:
        assert set(step["with"]) <= set(ACTION["inputs"]), step
    sharded = workflows[1]["jobs"]
    assert (
        sharded["wireconf"]["strategy"]["matrix"]["python"]
        and sharded["wireconf"]["strategy"]["matrix"]["shard"]
    )
    assert sharded["report"]["needs"] == "wireconf"
    documented = set(re.findall(r"^\| `([a-z-]+)` \|", DOC.split("Inputs of the action", 1)[1], re.M))
    assert documented == set(ACTION["inputs"])


def test_the_documented_commands_use_options_that_exist():
    help_text = subprocess.run(
        [sys.executable, "-m", "pytest", "--help"], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout
    parsers = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for block in re.findall(r"```sh\n(.*?)```", DOC, re.S):
        for line in block.splitlines():
            words = line.split()
            if not words or words[0].startswith("#") or "=" in words[0]:  # a comment, a variable set
                continue
            program = Path(words[0]).name
            options = [w.split("=")[0] for w in words if w.startswith("--")]
            if program == "pytest":
                for option in options:
                    assert re.search(rf"^\s+{re.escape(option)}\b", help_text, re.M), (
                        f"pytest {option}: {line}"
                    )
            elif program == "wireconf":
                known = {s for a in parsers[words[1]]._actions for s in a.option_strings}
                assert set(options) <= known, line


def test_the_documented_corpus_version_is_the_corpus_s():
    """The header, the baseline and the upgrade example of docs/ci.md show the version cases/rules.yaml
    declares, so that a reader compares like with like."""
    version = declared_version(CASES / "rules.yaml")
    shown = [
        *re.findall(r"wireconf corpus (\d+\.\d+\.\d+) \(", DOC),
        *re.findall(r"corpus: \{version: (\d+\.\d+\.\d+)", DOC),
        *re.findall(r"the corpus changed since \((\d+\.\d+\.\d+) ->", DOC),
    ]
    assert len(shown) >= 4
    assert set(shown) == {version}


def test_the_documented_installs_name_no_placeholder():
    """Every install line of docs/ci.md runs as written once WIRECONF says where wireconf comes from."""
    installs = [
        line
        for block in re.findall(r"```sh\n(.*?)```", DOC, re.S)
        for line in block.splitlines()
        if "pip install" in line
    ]
    assert installs
    for line in installs:
        assert "OWNER" not in line and "<" not in line.split("#", 1)[0], line
    assert re.search(r"^WIRECONF=\S+", DOC, re.M)
