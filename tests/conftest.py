"""Helpers for running the corpus (or a small corpus written by a test) through the plugin in-process."""

from __future__ import annotations

import fcntl
import json
import subprocess
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.cache_dir import cache_root
from harness.corpus.loader import Corpus
from harness.providers.registry import API_NAMES
from harness.pytest_plugin.summary import PROP_CASE, PROP_DIFFERENCES, PROP_PROBLEM, classify
from harness.sdk.replay import warm_up
from tests.fake_provider import fake_provider  # noqa: F401  (the fake provider server, as a fixture)
from tests.spread import pytest_cmdline_main  # noqa: F401  (README's test command on xdist workers)

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "cases"


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


@pytest.fixture(scope="session", autouse=True)
def _sdks_imported_once() -> None:
    """Warm the SDKs up before any pytester fixture takes its ``sys.modules`` snapshot, so that their
    lazily imported modules stay imported for the whole session instead of being purged after each
    test and imported again (seconds each time) by the next in-process run."""
    for api in API_NAMES:
        warm_up(api)
    _litellm_imported_once()


def _litellm_imported_once() -> None:
    """litellm (about 3 s to import) and the parts of it the seed adapters use, for the same reason."""
    try:
        from harness.adapters.litellm_objects import import_litellm

        import_litellm()
    except ImportError:
        return
    import litellm.litellm_core_utils.llm_response_utils.convert_dict_to_response
    import litellm.llms.anthropic.chat.handler
    import litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini  # noqa: F401


@pytest.fixture(scope="session")
def corpus() -> Corpus:
    return Corpus(CASES)


@pytest.fixture
def run_corpus(pytester: pytest.Pytester):
    """Run the project's corpus (or ``target``) in-process with extra options."""
    pytester.syspathinsert(REPO)

    def run(*args: str, target: Path = CASES) -> CorpusRun:
        return collect_run(pytester.inline_run(str(target), "-p", "no:cacheprovider", *args))

    return run


@pytest.fixture(scope="session")
def agentflow_python() -> str:
    """.venv-agentflow's Python (>= 3.12, wireconf and the agentflow extra), created by
    .ci/agentflow-venv when missing; skipped only where no Python >= 3.12 exists. A lock in the cache
    folder makes xdist workers wait for the one that creates it instead of creating it twice at once."""
    python = REPO / ".venv-agentflow" / "bin" / "python"
    lock = cache_root() / "agentflow-venv.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        if not python.exists():
            done = subprocess.run(
                [str(REPO / ".ci" / "agentflow-venv")], capture_output=True, text=True, check=False
            )
            if done.returncode == 3:
                pytest.skip(done.stderr.strip())
            assert done.returncode == 0, done.stderr
    return str(python)
