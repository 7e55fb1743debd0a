"""The runtimes' environments (``wireconf.envs``): what runtimes.yaml declares, the cache key, the
releases a series judges, the shards of the matrix, and the history across releases on the findings page
(``wireconf.reports.findings_releases``). Pure functions: no environment is made here
(tests/integration/test_runtime_envs.py makes them)."""

from __future__ import annotations

import io
import sys

import pytest

from tests.conftest import REPO
from wireconf.commands.findings import RUNTIMES_FILE, Job, _jobs, listed_runtimes
from wireconf.envs.matrix import ShardError, parse_shard, run_parallel, shard
from wireconf.envs.releases import newest
from wireconf.envs.spec import NPM, PYTHON, EnvSpec, EnvSpecError, Series, package_name, parse_env
from wireconf.reports.findings_releases import ReleaseRun, render_release_history, series_history
from wireconf.reports.jsonl import CaseRecord

RUNTIMES = {r.name: r for r in listed_runtimes(REPO / "conformance" / RUNTIMES_FILE)}


@pytest.mark.parametrize(
    ("requirement", "name"),
    [
        ("langchain-openai==1.7.4", "langchain-openai"),
        ("prompty>=2.1,<3", "prompty"),
        ("10xscale-agentflow[litellm]==0.6.4; python_version >= '3.12'", "10xscale-agentflow"),
        ("ai@6.0.326", "ai"),
        ("@ai-sdk/openai@3.0.141", "@ai-sdk/openai"),
        ("@ai-sdk/openai", "@ai-sdk/openai"),
    ],
)
def test_the_package_a_requirement_names(requirement, name):
    assert package_name(requirement) == name


def test_a_release_replaces_the_pin_of_its_package_only():
    spec = EnvSpec("langchain", PYTHON, ("langchain-openai==1.7.4", "langchain_anthropic==1.7.10"))
    release = spec.with_release("langchain-anthropic", "1.7.9")  # PyPI names compare normalised
    assert release.packages == ("langchain-openai==1.7.4", "langchain-anthropic==1.7.9")
    assert release.release == "langchain-anthropic==1.7.9"
    npm = EnvSpec("ai-sdk", NPM, ("ai@6.0.326", "@ai-sdk/openai@3.0.141")).with_release(
        "@ai-sdk/openai", "3.0.139"
    )
    assert npm.packages == ("ai@6.0.326", "@ai-sdk/openai@3.0.139")


def test_the_key_changes_with_what_goes_in_and_not_with_the_order():
    spec = EnvSpec("r", PYTHON, ("a==1", "b==2"))
    assert spec.key() == EnvSpec("r", PYTHON, ("b==2", "a==1")).key()
    assert spec.key() != EnvSpec("r", PYTHON, ("a==1", "b==3")).key()
    assert spec.key() != spec.key("openai>=2")  # the project's own requirements are part of it
    # a release pinned as the runtime already is shares the runtime's environment
    assert spec.with_release("a", "1").key() == spec.key()


def test_runtimes_yaml_declares_the_environments_and_series_the_issue_asks_for():
    """LangChain's OpenAI and Anthropic packages, LiteLLM, prompty and the AI SDK have releases judged."""
    series = {(name, s.package) for name, r in RUNTIMES.items() for s in r.series}
    assert {
        ("langchain", "langchain-openai"),
        ("langchain", "langchain-anthropic"),
        ("litellm", "litellm"),
        ("prompty", "prompty"),
        ("ai-sdk", "@ai-sdk/openai"),
    } <= series
    for runtime in RUNTIMES.values():
        if runtime.spec is not None:  # every package a series varies is one of the runtime's pins
            pinned = {package_name(p) for p in runtime.spec.packages}
            assert {s.package for s in runtime.series} <= pinned, runtime.name
    assert RUNTIMES["ai-sdk"].spec is not None and RUNTIMES["ai-sdk"].spec.ecosystem == NPM


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"impl": "x", "releases": [{"package": "x"}]}, "releases but no packages"),
        ({"impl": "x", "packages": "x==1"}, "list of requirements"),
        ({"impl": "x", "packages": ["x==1"], "ecosystem": "cargo"}, "ecosystem 'cargo'"),
        ({"impl": "x", "packages": ["x==1"], "releases": [{"api": ["openai.chat"]}]}, "needs a package"),
        ({"impl": "x", "packages": ["x==1"], "releases": {"package": "x"}}, "releases must be a list"),
    ],
)
def test_a_bad_environment_entry_is_an_error_naming_the_runtime_and_file(entry, message):
    with pytest.raises(EnvSpecError, match=message) as raised:
        parse_env("x", entry, "conformance/runtimes.yaml")
    assert "'x'" in str(raised.value) and "conformance/runtimes.yaml" in str(raised.value)


def test_newest_final_releases_within_a_specifier_oldest_first():
    listed = ["4.0.1", "3.0.141", "3.0.140rc1", "3.0.139", "3.0.9", "3.0.10", "2.9.0", "not-a-version"]
    assert newest(listed, 3) == ["3.0.139", "3.0.141", "4.0.1"]
    assert newest(listed, 3, "<4") == ["3.0.10", "3.0.139", "3.0.141"]  # numeric order, rc left out
    assert newest(listed, 0) == []
    with pytest.raises(EnvSpecError, match="not a version specifier"):
        newest(listed, 2, "three")


def test_jobs_are_the_pinned_runtimes_then_each_release(monkeypatch):
    monkeypatch.setattr(
        "wireconf.envs.releases.last_releases", lambda series, ecosystem, count: [f"{count}.0", f"{count}.1"]
    )
    jobs = _jobs([RUNTIMES["prompty"], RUNTIMES["langchain"], RUNTIMES["nat"]], 2)
    labels = [job.label for job in jobs]
    assert labels[:3] == ["prompty", "langchain", "nat"]
    assert labels[3:] == [
        "prompty prompty 2.0",
        "prompty prompty 2.1",
        "langchain langchain-openai 2.0",
        "langchain langchain-openai 2.1",
        "langchain langchain-anthropic 2.0",
        "langchain langchain-anthropic 2.1",
    ]
    assert len({job.stem for job in jobs}) == len(jobs)  # one report file each
    assert _jobs([RUNTIMES["prompty"]], 0) == [Job(RUNTIMES["prompty"])]


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_a_bad_shard_is_an_error(text):
    with pytest.raises(ShardError, match="I/N"):
        parse_shard(text)


def test_shards_are_disjoint_and_cover_the_matrix():
    items = list(range(11))
    parts = [shard(items, *parse_shard(f"{i}/3")) for i in (1, 2, 3)]
    assert sorted(x for part in parts for x in part) == items
    assert parts[0] == [0, 3, 6, 9]


def test_the_matrix_reports_each_job_as_it_finishes_and_keeps_the_order():
    out = io.StringIO()
    results = run_parallel([3, 1, 2], lambda n: n * 10, lambda item, result: f"job {item}: {result}", 2, out)
    assert results == [30, 10, 20]
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 and all(line.startswith(("[1/3] job", "[2/3] job", "[3/3] job")) for line in lines)
    assert {line.split("] ", 1)[1].split(" (")[0] for line in lines} == {
        "job 3: 30",
        "job 1: 10",
        "job 2: 20",
    }


def _failed(case: str, signature: str, rule: str = "7.1.5/max-completion-tokens") -> CaseRecord:
    difference = {"rules": [rule], "signature": signature, "tier": "spec", "text": signature}
    return CaseRecord(
        "rt",
        "1",
        case,
        "wire",
        "openai.chat",
        [rule],
        "failed",
        0.0,
        None,
        None,
        "",
        differences=[difference],
    )


def _passed(case: str) -> CaseRecord:
    return CaseRecord("rt", "1", case, "wire", "openai.chat", [], "passed", 0.0, None, None, "")


def test_a_cause_s_first_release_and_the_release_that_fixed_it():
    old, fixed, stays = (
        "request $.max_tokens: unexpected",
        "request $.seed: missing",
        "request $.n: unexpected",
    )
    runs = [
        ReleaseRun("rt", "pkg", "1.10.0", (), [_failed("a", stays), _passed("b")]),
        ReleaseRun("rt", "pkg", "1.9.0", (), [_failed("a", stays), _failed("b", old)]),
        ReleaseRun("rt", "pkg", "1.11.0", (), [], "cannot import name 'ChatOpenAI'"),
        ReleaseRun("rt", "pkg", "1.12.0", (), [_failed("a", stays), _failed("c", fixed)]),
    ]
    ordered, history = series_history(runs)
    assert [run.version for run in ordered] == ["1.9.0", "1.10.0", "1.11.0", "1.12.0"]
    by = {item.key[1]: item for item in history}
    assert (by[old].first, by[old].fixed, by[old].cases) == ("1.9.0", "1.10.0", [1, 0, None, 0])
    assert (by[stays].first, by[stays].fixed) == ("1.9.0", None)
    assert (by[fixed].first, by[fixed].fixed) == ("1.12.0", None)
    page = "\n".join(render_release_history(runs))
    assert "| rt | `pkg` | 1.11.0 | error: cannot import name 'ChatOpenAI' |" in page
    assert "| rt | `pkg` | 1.9.0 | 2 | 0 | 2 | 0 | 2 |" in page
    assert f"| 7.1.5/max-completion-tokens: `{old}` | 1.9.0 | 1.10.0 | 1 | 0 | error | 0 |" in page
    assert "1 root cause(s) are in every release judged" in page  # `stays`, not listed row by row
    assert render_release_history([]) == []


def test_releases_listed_once_are_used_when_the_registry_cannot_be_reached(tmp_path, monkeypatch):
    from wireconf.envs import releases

    series = Series("pkg")
    monkeypatch.setattr(releases, "_listed", lambda package, ecosystem: ["1.0", "1.1", "2.0rc1"])
    assert releases.last_releases(series, PYTHON, 4, cache=tmp_path) == ["1.0", "1.1"]

    def offline(package: str, ecosystem: str) -> list[str]:
        raise releases.ReleasesError(f"pip index versions {package} failed: no network")

    monkeypatch.setattr(releases, "_listed", offline)
    assert releases.last_releases(series, PYTHON, 1, cache=tmp_path) == ["1.1"]  # as kept
    with pytest.raises(releases.ReleasesError, match="no network"):
        releases.last_releases(Series("other"), PYTHON, 1, cache=tmp_path)
    with pytest.raises(releases.ReleasesError):  # kept per ecosystem: npm's pkg is another package
        releases.last_releases(series, NPM, 1, cache=tmp_path)


def test_a_new_entry_point_of_the_checkout_makes_a_new_environment(tmp_path):
    """The editable install records the checkout's entry points (its adapters, the plugin) when it is
    made: an environment made before an adapter was added would not find it."""
    from wireconf.envs.build import folder_of

    project = '[project]\nname = "wireconf"\ndependencies = ["pytest>=8"]\n'
    (tmp_path / "pyproject.toml").write_text(project)
    spec = EnvSpec("r", PYTHON, ("a==1",))
    before = folder_of(spec, tmp_path / "cache", tmp_path)
    assert before == folder_of(spec, tmp_path / "cache", tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        project + '[project.entry-points."wireconf.adapters"]\nnew = "m:A"\n'
    )
    assert folder_of(spec, tmp_path / "cache", tmp_path) != before
    assert before.parent == tmp_path / "cache" / "envs"


def test_agentflow_and_llamaindex_have_environments_with_their_extras_pins():
    """Their pins are pyproject.toml's extras' (what .ci/agentflow-venv and .ci/llamaindex-venv installed),
    agentflow's on a Python >= 3.12 of its own and served over exec: from it."""
    import tomllib

    with (REPO / "pyproject.toml").open("rb") as handle:
        extras = tomllib.load(handle)["project"]["optional-dependencies"]
    for name in ("agentflow", "llamaindex"):
        spec = RUNTIMES[name].spec
        assert spec is not None and spec.ecosystem == PYTHON, name
        assert sorted(spec.packages) == sorted(p.split(";")[0].strip() for p in extras[name]), name
    assert RUNTIMES["agentflow"].spec.requires_python == ">=3.12" and RUNTIMES["agentflow"].served
    assert RUNTIMES["llamaindex"].spec.requires_python == "" and not RUNTIMES["llamaindex"].served


def test_a_served_runtime_runs_in_this_pytest_and_is_served_from_its_environment(tmp_path):
    from pathlib import Path

    served, in_process = RUNTIMES["agentflow"], RUNTIMES["llamaindex"]
    python = Path("/envs/python-0123/bin/python")
    assert served.in_env(python).impl == f"exec:{python} -m wireconf.exec_protocol.serve agentflow"
    assert served.in_env(python).python == sys.executable
    assert (in_process.in_env(python).impl, in_process.in_env(python).python) == ("llamaindex", str(python))


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"impl": "x", "packages": ["x==1"], "requires-python": "three"}, "not a version specifier"),
        ({"impl": "x", "packages": ["x@1"], "ecosystem": "npm", "requires-python": ">=3.12"}, "Python"),
    ],
)
def test_a_bad_python_requirement_is_an_error(entry, message):
    with pytest.raises(EnvSpecError, match=message):
        parse_env("x", entry, "conformance/runtimes.yaml")


def test_the_python_an_environment_requires_is_part_of_its_key():
    plain = EnvSpec("r", PYTHON, ("a==1",))
    this = ".".join(map(str, sys.version_info[:2]))
    assert plain.key() == plain.key(python=this)  # the environments made before keep their keys
    required = EnvSpec("r", PYTHON, ("a==1",), requires_python=">=3.12")
    assert required.key(python="3.13") not in {plain.key(), plain.key(python="3.13")}
    assert required.key(python="3.13") != required.key(python="3.12")


def test_the_newest_installed_python_that_meets_the_requirement_is_chosen(monkeypatch):
    from wireconf.envs import interpreters

    versions = {"/py/3.12/bin/python": "3.12.1", "/py/3.13/bin/python": "3.13.0", "/py/3.9/bin/python": "3.9"}
    named = "/py/3.12/bin/python"  # pyenv's, named by its version; the others are run to know it
    monkeypatch.setattr(
        interpreters, "_candidates", lambda: [(p, versions[p] if p == named else None) for p in versions]
    )
    monkeypatch.setattr(interpreters, "_version_of", lambda path: None if path == named else versions[path])
    interpreters.interpreter.cache_clear()
    try:
        assert interpreters.interpreter(">=3.12") == interpreters.Interpreter("/py/3.13/bin/python", "3.13.0")
        assert interpreters.interpreter(">=3.12,<3.13").path == "/py/3.12/bin/python"
        assert interpreters.interpreter(">=3.14") is None
        assert interpreters.interpreter("") == interpreters.current()
        assert interpreters.interpreter(">=3.12").minor == "3.13"
    finally:
        interpreters.interpreter.cache_clear()


def test_wireconf_envs_names_an_unknown_runtime_and_a_missing_python(tmp_path, monkeypatch, capsys):
    from wireconf.envs import __main__ as envs_main
    from wireconf.envs import interpreters

    runtimes = tmp_path / "runtimes.yaml"
    runtimes.write_text(
        "runtimes:\n  old:\n    impl: old\n    packages: [a==1]\n    requires-python: '>=9'\n"
        "  bare:\n    impl: bare\n"
    )
    monkeypatch.setattr(interpreters, "_candidates", lambda: [])
    monkeypatch.setenv("WIRECONF_CACHE_DIR", str(tmp_path / "cache"))
    interpreters.interpreter.cache_clear()
    try:
        assert envs_main.main(["bare", "--runtimes", str(runtimes)]) == 2
        assert "bare: not among ['old']" in capsys.readouterr().err
        assert envs_main.main(["old", "--runtimes", str(runtimes)]) == envs_main.NO_INTERPRETER
        err = capsys.readouterr().err
        assert "old needs Python >=9 and none is installed here" in err
        assert not (tmp_path / "cache").exists()  # nothing was attempted
    finally:
        interpreters.interpreter.cache_clear()


def test_a_runtime_without_the_python_it_needs_is_skipped_locally_and_failed_under_ci(monkeypatch):
    """tests.runtime_envs.runtime_env, which the agentflow_python and llamaindex_python fixtures call: a
    skip with the reason, unless .ci/run set WIRECONF_REQUIRE_<RUNTIME> after making the environment."""
    from tests import runtime_envs
    from wireconf.envs.build import NoInterpreterError

    def no_python(spec):
        raise NoInterpreterError(
            f"{spec.name} needs Python {spec.requires_python} and none is installed here"
        )

    monkeypatch.setattr(runtime_envs, "make", no_python)
    monkeypatch.delenv("WIRECONF_REQUIRE_AGENTFLOW", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"agentflow needs Python >=3\.12"):
        runtime_envs.runtime_env("agentflow")
    monkeypatch.setenv("WIRECONF_REQUIRE_AGENTFLOW", "1")
    with pytest.raises(pytest.fail.Exception, match="WIRECONF_REQUIRE_AGENTFLOW is set"):
        runtime_envs.runtime_env("agentflow")
    assert runtime_envs.required("luthien-967f2d8f") == "WIRECONF_REQUIRE_LUTHIEN_967F2D8F"
