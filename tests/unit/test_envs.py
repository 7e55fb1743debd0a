"""The runtimes' environments (``wireconf.envs``): what runtimes.yaml declares, the cache key, the
releases a series judges, the shards of the matrix, and the history across releases on the findings page
(``wireconf.reports.findings_releases``). Pure functions: no environment is made here
(tests/integration/test_runtime_envs.py makes them)."""

from __future__ import annotations

import io

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
