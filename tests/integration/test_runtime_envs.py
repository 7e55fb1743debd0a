"""The shipped runtimes run from environments of their own (``wireconf.envs``, conformance/runtimes.yaml's
``packages``): made with the ecosystem's tools into the cache folder, reused by the next run, and running
the runtime through its adapter in-process there. NVIDIA NeMo Agent toolkit's ATIF extractors (nat),
prompty, LiteLLM (and luthien's processor on it), LangChain's chat models, agentflow (on a Python >= 3.12
of its own) and LlamaIndex are installed in no other environment: the project's dev extra pins none of
them."""

from __future__ import annotations

import os
import subprocess
import tomllib

import pytest

from tests.conftest import REPO
from tests.runtime_envs import IN_ENV, moved_out, run_in_env, runtime_env
from wireconf.commands.findings import RUNTIMES_FILE, listed_runtimes
from wireconf.envs.build import MARK, make
from wireconf.envs.spec import PYTHON, package_name

pytestmark = pytest.mark.third_party

IN_PROCESS_TESTS = {
    "prompty": [
        "tests/integration/test_prompty_adapter.py::test_prompty_declares_what_it_really_does",
        "tests/integration/test_prompty_adapter.py::test_prompty_runs_the_whole_corpus_without_errors",
        "tests/integration/test_prompty_adapter.py::test_the_committed_baseline_matches_a_fresh_run",
        "tests/integration/test_adapter_guide.py::test_the_worked_prompty_example_gives_the_project_adapters_verdicts",
    ],
    "langchain": [
        "tests/integration/test_langchain_litellm.py::test_each_runtime_runs_its_kinds_against_its_committed_baseline[langchain]",
        "tests/integration/test_langchain_litellm.py::test_langchain_messages_are_langchains_own_objects",
        "tests/integration/test_langchain_litellm.py::test_the_langchain_fake_refuses_what_chatopenai_refuses",
    ],
    # luthien's processor runs on LiteLLM: both commits share its environment (the same pins)
    "litellm": [
        "tests/integration/test_langchain_litellm.py::test_each_runtime_runs_its_kinds_against_its_committed_baseline[litellm]",
        "tests/integration/test_langchain_litellm.py::test_the_litellm_fake_refuses_what_litellm_refuses",
        "tests/integration/test_langchain_litellm.py::test_litellm_over_endpoints_leaves_no_response_open",
        "tests/integration/test_seed_adapters.py::test_a_checkout_with_the_class_declares_every_blocks_api_and_leaves_no_module_behind",
        "tests/integration/test_seed_adapters.py::test_luthien_fake_from_the_document_breaks_exactly_the_project_decisions",
        "tests/integration/test_seed_adapters.py::test_agentflow_fake_passes_responses_and_fails_empty_partials",
        "tests/integration/test_seed_adapters.py::test_the_fakes_refuse_the_sdk_objects_a_wrong_translation_would_hand_them",
        "tests/integration/test_seed_adapters.py::test_litellm_draws_seeded_ids_inside_the_context_and_random_ones_elsewhere",
        "tests/integration/test_seed_adapters.py::test_two_runs_through_litellm_give_identical_verdicts_and_diffs",
        "tests/integration/test_seed_adapters.py::test_litellm_reads_the_recorded_lines_with_the_model_the_stream_names[blocks.gemini.generate_content.real-single-function-call-gemini-2.0-flash]",
        "tests/integration/test_seed_adapters.py::test_litellm_reads_the_recorded_lines_with_the_model_the_stream_names[blocks.anthropic.messages.real-max-tokens-text-claude-sonnet-4-20250514]",
        "tests/integration/test_seed_adapters.py::test_litellm_reads_the_recorded_lines_with_the_model_the_stream_names[blocks.gemini.generate_content.thought-parts-make-no-block-gemini-2.5-flash]",
        "tests/integration/test_seed_runtimes.py::test_luthien_at_each_commit_runs_every_blocks_case_against_its_baseline[luthien-967f2d8f]",
        "tests/integration/test_seed_runtimes.py::test_luthien_at_each_commit_runs_every_blocks_case_against_its_baseline[luthien-97480124]",
        "tests/unit/test_repro.py::test_a_generated_script_imports_only_the_runtime",
        "tests/integration/test_agentflow_out_of_process.py::test_agentflow_served_over_exec_gives_the_in_process_verdicts",
    ],
}
"""The tests that import a moved runtime in their own process (``tests.runtime_envs.in_process``): run
with its environment's Python, where it is installed."""


def _dev_extra() -> set[str]:
    with (REPO / "pyproject.toml").open("rb") as handle:
        project = tomllib.load(handle)["project"]
    return {package_name(p).lower() for p in project["optional-dependencies"]["dev"]}


def test_the_dev_extra_pins_no_runtime_package_that_has_an_environment_of_its_own():
    runtimes = listed_runtimes(REPO / "conformance" / RUNTIMES_FILE)
    packages = {
        package_name(p).lower()
        for r in runtimes
        if r.spec is not None and r.spec.ecosystem == PYTHON
        for p in r.spec.packages
    }
    moved = {"nvidia-nat-atif", "prompty", "litellm", "langchain-openai", "langchain-anthropic"}
    moved |= {"10xscale-agentflow", "llama-index-core", "llama-index-llms-openai"}
    assert moved | {"langchain-google-genai"} <= packages
    assert packages & _dev_extra() == set()


def test_nat_runs_the_extract_cases_from_its_environment(tmp_path):
    env = runtime_env("nat")
    pinned = subprocess.run(
        [str(env.python), "-c", "import importlib.metadata as m; print(m.version('nvidia-nat-atif'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert f"nvidia-nat-atif=={pinned}" in env.spec.packages
    records = run_in_env(env, tmp_path / "nat.jsonl", "--impl=nat", "-k", "extract")
    statuses = {record["id"]: record["status"] for record in records}
    assert statuses and set(statuses.values()) <= {"passed", "failed"}
    assert statuses["extract.openai.chat.real-one-tool-call-content-null"] == "passed"
    failed = [record for record in records if record["status"] == "failed"]
    assert failed, "nat's extractors differ from the expectation somewhere (conformance/nat.yaml)"
    for record in failed:  # every difference is declared by a rule (tests/conftest.py: assert_all_ruled)
        assert record["differences"] and all(d.get("rules") for d in record["differences"]), record["id"]


def test_an_environment_is_reused_from_the_cache_and_made_again_when_unfinished():
    env = runtime_env("nat")
    again = make(env.spec)
    assert again.reused and again.folder == env.folder
    (env.folder / MARK).unlink()  # as a build that died half-way leaves it
    remade = runtime_env("nat")
    assert not remade.reused and remade.folder == env.folder and (env.folder / MARK).is_file()
    assert remade.python.is_file()


@pytest.mark.parametrize("name", sorted(IN_PROCESS_TESTS))
def test_a_moved_runtime_s_in_process_tests_pass_in_its_environment(name):
    """They are skipped in the project's environment (the runtime is not installed there) and run here,
    every one of them, with the environment's Python."""
    assert moved_out(name), f"{name} is still in the dev extra: its tests run in the project's environment"
    env = runtime_env(name)
    done = subprocess.run(
        [str(env.python), "-m", "pytest", *IN_PROCESS_TESTS[name], "-p", "no:cacheprovider", "-q", "-rs"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, IN_ENV: name},
    )
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-2000:]
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    assert f"{len(IN_PROCESS_TESTS[name])} passed" in summary and "skipped" not in summary, summary
