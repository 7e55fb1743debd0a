"""Helpers for running the corpus (or a small corpus written by a test) through the plugin in-process."""

from __future__ import annotations

import importlib
import json
import os
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.fake_provider import fake_provider  # noqa: F401  (the fake provider server, as a fixture)
from tests.spread import pytest_cmdline_main  # noqa: F401  (README's test command on xdist workers)
from wireconf.corpus.loader import Corpus
from wireconf.kinds.registry import open_corpus
from wireconf.pytest_plugin.plugin import ACTIVE_PLUGINS
from wireconf.pytest_plugin.summary import PROP_CASE, PROP_DIFFERENCES, PROP_PROBLEM, classify
from wireconf.reports.baseline import load_baseline
from wireconf.reports.reason_check import stale_reason

REPO = Path(__file__).resolve().parent.parent
os.environ.setdefault("WIRECONF_EXEC_VALIDATE", "1")  # every exec message either side writes, checked
CASES = REPO / "cases"

for _module in ACTIVE_PLUGINS:
    # The plugin imports these only in a run that uses wireconf. Imported here, before any pytester
    # run takes its sys.modules snapshot, they stay the same module objects for the whole session: else
    # the first nested run would import them and its restore drop them, and a test that patches one
    # (``runners.child.prepare_case``) would patch a copy that the next nested run no longer uses.
    importlib.import_module(_module)


def small_corpus(root: Path, rules: str, name: str, cases: str) -> Path:
    """A corpus of one case file (``cases`` dedented) beside ``rules`` (a rules.yaml), under ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "rules.yaml").write_text(rules)
    (root / name).write_text(textwrap.dedent(cases))
    return root


@dataclass
class CorpusRun:
    """The outcome of every case of one run, read from pytest's own reports."""

    outcomes: dict[str, str]
    longreprs: dict[str, str]
    problems: dict[str, str]
    ret: int
    differences: dict[str, list[dict]] = field(default_factory=dict)
    """Each failing case's attributed differences (``Attribution.to_data``), as the report carries them."""

    def with_outcome(self, outcome: str) -> set[str]:
        return {case for case, got in self.outcomes.items() if got == outcome}

    def unruled(self) -> list[str]:
        """``case: signature`` of every difference no rule declares (a defect of the corpus)."""
        return [
            f"{case}: {d.get('signature')}"
            for case, found in sorted(self.differences.items())
            for d in found
            if d.get("basis") == "unruled"
        ]


def collect_run(reprec: pytest.HookRecorder) -> CorpusRun:
    outcomes: dict[str, str] = {}
    longreprs: dict[str, str] = {}
    problems: dict[str, str] = {}
    differences: dict[str, list[dict]] = {}
    for report in reprec.getreports("pytest_runtest_logreport"):
        props = dict(report.user_properties)
        if PROP_PROBLEM in props and report.when == "call" and report.failed:
            problems[props[PROP_PROBLEM]] = str(report.longrepr)
        if PROP_CASE not in props:
            continue
        outcome = classify(report)
        if outcome is not None:
            outcomes[props[PROP_CASE]] = outcome
            if outcome != "passed":
                longreprs[props[PROP_CASE]] = str(report.longrepr)
        if PROP_DIFFERENCES in props:
            differences[props[PROP_CASE]] = json.loads(props[PROP_DIFFERENCES])
    return CorpusRun(outcomes, longreprs, problems, int(reprec.ret), differences)


def assert_all_ruled(run: CorpusRun, runtime: str) -> None:
    """The guard of declared attribution: every difference a judged runtime's run produces is declared
    by a rule (``governs`` in rules.yaml). An unruled one fails no claim against the runtime; it is a
    rule whose declaration is missing or an expectation that asks for more than any rule does."""
    unruled = run.unruled()
    assert not unruled, (
        f"{len(unruled)} difference(s) of {runtime} that no rule declares (add the `governs` of the rule "
        "they break in cases/rules.yaml, or loosen the expectation):\n  " + "\n  ".join(unruled)
    )


def assert_reasons_true(run: CorpusRun, baseline: Path) -> None:
    """Every reason of ``baseline`` for a case this run failed is true of the failure as it is now
    (``wireconf.reports.reason_check``): it names a rule the failure breaks and quotes only differences
    the run shows. A reason kept from an older failure is a false claim on the public findings page."""
    reasons = load_baseline(baseline).expected
    stale = {
        case: why
        for case, reason in sorted(reasons.items())
        if (why := stale_reason(reason, run.differences.get(case, [])))
    }
    assert not stale, (
        f"{len(stale)} reason(s) in {baseline.name} no longer true of the failure (rewrite them; "
        "`--update-baseline` replaces them with the current rule and difference):\n  "
        + "\n  ".join(f"{case}: {why}" for case, why in stale.items())
    )


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    return open_corpus(CASES)


SUITE_CASE_TIMEOUT = "--case-timeout=60"
"""The time limit of the suite's corpus runs unless a test sets its own: they judge verdicts, not
speed, and a loaded machine (an MCP server's start, a first SDK parse) must not turn a case into an
error; a test of the time limit itself gives the limit it tests."""


@pytest.fixture
def run_corpus(pytester: pytest.Pytester):
    """Run the project's corpus (or ``target``) in-process with extra options."""
    pytester.syspathinsert(REPO)

    def run(*args: str, target: Path = CASES) -> CorpusRun:
        limit = [] if any(a.startswith("--case-timeout") for a in args) else [SUITE_CASE_TIMEOUT]
        return collect_run(pytester.inline_run(str(target), "-p", "no:cacheprovider", *limit, *args))

    return run


@pytest.fixture
def run_corpus_apart(pytester: pytest.Pytester, tmp_path: Path):
    """Run the corpus (or ``target``) in a pytest process of its own, as a user runs it, its outcomes read
    from its ``--report``: for a judgment that must not share this worker's process with the tests that
    ran in it before (``run_corpus``'s nested run imports nothing anew: a module's state left by an
    earlier test is the nested run's too)."""

    def run(*args: str, target: Path = CASES) -> CorpusRun:
        report = tmp_path / f"report-{len(list(tmp_path.glob('report-*')))}.jsonl"
        limit = [] if any(a.startswith("--case-timeout") for a in args) else [SUITE_CASE_TIMEOUT]
        done = pytester.runpytest_subprocess(
            str(target), "-p", "no:cacheprovider", "-n", "0", *limit, f"--report={report}", *args
        )
        outcomes: dict[str, str] = {}
        longreprs: dict[str, str] = {}
        for line in report.read_text(encoding="utf-8").splitlines() if report.exists() else []:
            entry = json.loads(line)
            outcomes[entry["id"]] = entry["status"]
            if entry["status"] != "passed":
                longreprs[entry["id"]] = str(entry.get("message") or entry.get("reason") or "")
        return CorpusRun(outcomes, longreprs, {}, int(done.ret))

    return run


@pytest.fixture(scope="session")
def agentflow_python() -> str:
    """The Python of agentflow's environment (conformance/runtimes.yaml: Python >= 3.12, its pins and
    wireconf editable), made by ``wireconf.envs`` or reused (``tests.runtime_envs.runtime_env``): skipped
    with the reason where there is no Python >= 3.12, or no cache and no network; failed instead under
    ``WIRECONF_REQUIRE_AGENTFLOW``, which ``.ci/run`` sets once it has made the environment."""
    from tests.runtime_envs import runtime_env

    return str(runtime_env("agentflow").python)


@pytest.fixture(scope="session")
def llamaindex_python() -> str:
    """The Python of LlamaIndex's environment (conformance/runtimes.yaml: LlamaIndex pins older provider
    SDKs than the project's, so it never runs in ``.venv``), made or reused as ``agentflow_python``'s;
    ``WIRECONF_REQUIRE_LLAMAINDEX`` makes its absence a failure."""
    from tests.runtime_envs import runtime_env

    return str(runtime_env("llamaindex").python)
