"""wireconf as a runtime's own CI installs it: an sdist and a wheel built from this checkout, the wheel
installed into a fresh venv outside it, and every command run from an empty directory.

The fresh venv reuses the project venv's dependencies (a ``.pth`` line puts its site-packages after the
venv's own, without running that folder's ``.pth`` files, so the checkout's editable install stays out)
and gets the wheel with ``--no-deps --no-index``: no network, and only wireconf itself is new. The
tests check that the code and the corpus they run come from the wheel, never from the checkout.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from tests.conftest import CASES, REPO
from wireconf.corpus.identity import corpus_identity
from wireconf.kinds.registry import open_corpus

pytestmark = pytest.mark.xdist_group("install")  # one build per run, under --dist loadgroup too

BROKEN = "7.1.5/max-completion-tokens"  # what every version of the fake runtime gets wrong
SELECT = ("--kind=wire", "--api=openai.chat")  # the fake runtime's cases: a gate run takes seconds

FAKE_RUNTIME = '''
"""A runtime that sends max_tokens (every version) and, from version 2 on, sends a developer message
as a system one: a regression of 7.1.1/role-copied."""
import os

from wireconf.reference_impl.adapter import ReferenceAdapter


class Adapter(ReferenceAdapter):
    name = "fake-runtime"
    version = os.environ.get("FAKE_RUNTIME_VERSION", "1")

    def capabilities(self):
        return {"wire:openai.chat"}

    def build_request(self, api, agent, messages):
        body = super().build_request(api, agent, messages)
        if "max_completion_tokens" in body:
            body["max_tokens"] = body.pop("max_completion_tokens")
        if self.version != "1":
            for message in body.get("messages", []):
                if message.get("role") == "developer":
                    message["role"] = "system"
        return body
'''


@dataclass
class Installed:
    wheel: Path
    python: Path  # the fresh venv's interpreter
    bin: Path
    site: Path  # the fresh venv's site-packages
    work: Path  # an empty directory, the runtime's repository
    runtime: Path  # where the fake runtime's module lives (on PYTHONPATH)

    @property
    def corpus(self) -> Path:
        return self.site / "wireconf" / "_corpus" / "cases"

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHON"))}
        env.update(PATH=f"{self.bin}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(self.runtime))
        env.pop("VIRTUAL_ENV", None)
        return {**env, **extra}

    def run(self, *command: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(c) for c in command], cwd=self.work, env=self.env(**env), capture_output=True, text=True
        )

    def pytest(self, *args: str | Path, **env: str) -> subprocess.CompletedProcess[str]:
        return self.run(self.python, "-m", "pytest", *args, **env)


def _copy_source(into: Path) -> None:
    """The files of this checkout that git would commit (tracked, or new and not ignored), as they are
    now: what a clone holds, without the venvs, caches and builds beside it."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # a tracked file deleted in the working tree is not part of it
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)


def _build(python: str, source: Path, step: str, out: Path) -> Path:
    """One PEP 517 step of setuptools' backend (what ``python -m build`` runs), without isolation."""
    code = f"import sys, setuptools.build_meta as b; print(b.{step}(sys.argv[1]))"
    done = subprocess.run(
        [python, "-c", code, str(out)], cwd=source, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"{step} failed:\n{done.stdout}\n{done.stderr}"
    return out / done.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("install")
    source, dist = root / "source", root / "dist"
    _copy_source(source)  # the build never writes into the checkout
    sdist = _build(sys.executable, source, "build_sdist", dist)
    with tarfile.open(sdist) as archive:  # the data filter exists from Python 3.11.4 on
        safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        archive.extractall(root / "unpacked", **safe)
    wheel = _build(
        sys.executable, root / "unpacked" / sdist.name.removesuffix(".tar.gz"), "build_wheel", dist
    )

    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "project-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    work, runtime = root / "work", root / "runtime"
    work.mkdir()
    runtime.mkdir()
    (runtime / "fake_runtime.py").write_text(FAKE_RUNTIME)
    done = subprocess.run(
        [python, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return Installed(wheel, python, venv / "bin", site, work, runtime)


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_the_wheel_carries_the_corpus_and_runs_from_it(installed):
    names = zipfile.ZipFile(installed.wheel).namelist()
    checkout = {
        f"wireconf/_corpus/{p.relative_to(REPO).as_posix()}"
        for folder in ("cases", "cassettes")
        for p in (REPO / folder).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert checkout <= set(names), sorted(checkout - set(names))[:5]
    assert "wireconf/_corpus/cases/_data/mcp/server.py" in names  # case data too
    assert not [n for n in names if n.startswith(("cases/", "cassettes/", "tests/"))]  # nothing loose

    probe = installed.run(
        installed.python,
        "-c",
        "import wireconf, importlib.metadata as m; from wireconf.corpus.installed import installed_corpus; "
        "print(wireconf.__file__); print(m.distribution('wireconf').locate_file('')); "
        "print(installed_corpus())",
    )
    module, dist, corpus = probe.stdout.split()
    for path in (module, dist, corpus):
        assert Path(path).is_relative_to(installed.site), f"{path} is not the wheel's"
    assert Path(corpus) == installed.corpus
    # the same corpus, byte for byte, as this checkout's
    assert corpus_identity(installed.corpus) == corpus_identity(CASES)


def test_the_wheel_installs_no_import_name_but_wireconf(installed):
    """Everything wireconf installs lives under ``wireconf`` (a generic top-level name such as ``harness``
    would collide with another distribution's): read from the wheel's RECORD, the list pip installs."""
    with zipfile.ZipFile(installed.wheel) as wheel:
        record = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
        files = [line.split(",")[0] for line in wheel.read(record).decode().splitlines() if line]
    top = {f.split("/")[0] for f in files if not f.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"wireconf"}, sorted(top)
    assert "wireconf/reference_impl/adapter.py" in files
    installed_top = {p.name for p in installed.site.iterdir()} - {"__pycache__"}
    assert {n for n in installed_top if not n.endswith((".dist-info", ".pth"))} == {"wireconf"}


def test_the_installed_corpus_runs_from_an_empty_directory_and_the_reference_passes(installed):
    report = installed.work.parent / "reference.jsonl"
    done = installed.pytest("--wireconf", "-p", "no:cacheprovider", f"--report={report}")
    assert done.returncode == 0, done.stdout[-3000:]
    identity = corpus_identity(installed.corpus)
    assert f"wireconf corpus {identity.label}: {installed.corpus}" in done.stdout
    lines = _lines(report)
    assert len(lines) == sum(1 for _ in open_corpus(installed.corpus).cases())
    assert {x["status"] for x in lines} == {"passed"}
    assert {(x["corpus"], x["corpus_hash"]) for x in lines} == {(identity.version, identity.hash)}
    # locations read as in a checkout, node ids are relative to the installed corpus
    assert all(x["location"].startswith("cases/") for x in lines)
    assert "pytest also counts the 2 checks of rules.yaml" in done.stdout
    assert not any(installed.work.iterdir()), "the run wrote into the runtime's repository"

    lint = installed.run(installed.bin / "wireconf", "lint")
    assert lint.returncode == 0 and lint.stdout.strip().endswith(": ok"), lint.stdout
    missing = installed.run(installed.bin / "wireconf", "lint", "cases")
    assert missing.returncode == 2
    assert missing.stderr == "wireconf lint: no corpus at cases: no such folder\n"


def _older_corpus(installed: Installed, into: Path) -> set[str]:
    """A copy of the installed corpus as an older release: version 0.9.0, without some files of cases the
    fake runtime fails (each file chosen so that every rule keeps a case). Returns the removed case ids."""
    shutil.copytree(installed.corpus, into / "cases")
    shutil.copytree(installed.corpus.parent / "cassettes", into / "cassettes")
    corpus = open_corpus(into / "cases")
    files_of_rule: dict[str, set[Path]] = {}
    for case in corpus.cases():
        for rule in case.model.rules:
            files_of_rule.setdefault(rule, set()).add(case.path)
    removed: set[str] = set()
    for case in corpus.cases_citing(BROKEN):
        in_file = [c for c in corpus.cases() if c.path == case.path]
        alone = any(files_of_rule[r] == {case.path} for c in in_file for r in c.model.rules)
        if case.kind == "wire" and case.api == "openai.chat" and not alone and case.path.exists():
            case.path.unlink()
            removed |= {c.id for c in in_file}
            for files in files_of_rule.values():
                files.discard(case.path)
    rules = into / "cases" / "rules.yaml"
    text = rules.read_text()
    assert "corpus:\n  version: " in text
    rules.write_text(text.replace(f"version: {corpus.catalogue.version}", "version: 0.9.0", 1))
    return removed


def test_a_baseline_from_an_older_corpus_tells_new_cases_from_regressions(installed):
    old = installed.work.parent / "old"
    removed = _older_corpus(installed, old)
    assert removed, "no file of the fake runtime's failures could be left out of the older corpus"
    baseline = installed.work.parent / "baseline.yaml"
    made = installed.pytest(
        old / "cases", "--impl=fake_runtime:Adapter", *SELECT, f"--baseline={baseline}", "--update-baseline"
    )
    assert made.returncode == 0, made.stdout[-3000:]
    written = yaml.safe_load(baseline.read_text())
    assert written["corpus"]["version"] == "0.9.0"
    assert written["impl"] == "fake-runtime" and written["version"] == "1"
    assert not removed & (set(written["passed"]) | set(written["expected_failures"]))
    expected = set(written["expected_failures"])  # what version 1 fails in the older corpus

    def gate(version: str, *extra: str) -> tuple[subprocess.CompletedProcess[str], dict[str, dict]]:
        report = installed.work.parent / f"v{version}{''.join(extra)}.jsonl"
        done = installed.pytest(
            "--wireconf", "--impl=fake_runtime:Adapter", *SELECT, f"--baseline={baseline}",
            f"--report={report}", *extra, FAKE_RUNTIME_VERSION=version,
        )  # fmt: skip
        return done, {x["id"]: x for x in _lines(report)}

    # the same runtime on the newer corpus: the cases added since fail, and are new
    strict, records = gate("1")
    failing = {k for k, x in records.items() if x["status"] == "failed"}
    assert expected <= failing and failing - expected and failing - expected <= removed
    assert {k for k, x in records.items() if x.get("baseline") == "new"} == failing - expected
    assert {k for k, x in records.items() if x.get("baseline") == "expected"} == expected
    assert strict.returncode == 1, "new failures fail the run unless allowed"
    assert "corpus changed since (0.9.0 (sha256:" in strict.stdout

    allowed, records = gate("1", "--allow-new-failures")
    assert allowed.returncode == 0, allowed.stdout[-3000:]
    assert {k for k, x in records.items() if x.get("baseline") == "new" and x.get("accepted")} == (
        failing - expected
    )

    # version 2 breaks a rule it passed: a regression fails the run even with new failures allowed
    regressed, records = gate("2", "--allow-new-failures")
    assert regressed.returncode == 1
    was_passing = set(written["passed"])
    now_failing = {k for k, x in records.items() if x["status"] == "failed"}
    regressions = {k for k, x in records.items() if x.get("baseline") == "regression"}
    assert regressions and regressions == now_failing & was_passing
    assert all("7.1.1/role-copied" in records[k]["rules"] for k in regressions)
    assert f"{len(regressions)} regression(s)" in regressed.stdout
    # a failure names its case's file as a checkout does, never through site-packages
    located = re.findall(r"case \S+ \((\S+)\) against fake-runtime", regressed.stdout)
    assert located and all(where.startswith("cases/wire/") for where in located), located[:3]

    shown = installed.work.parent / "v2--allow-new-failures.jsonl"
    markdown = installed.run(installed.bin / "wireconf", "report", shown)
    assert markdown.returncode == 0
    assert "(**regression**)" in markdown.stdout and "(new (allowed))" in markdown.stdout
    assert f"Corpus {corpus_identity(installed.corpus).label}." in markdown.stdout

    # --lf reruns exactly the run's failures (the regressions; the allowed new failures were xfailed):
    # node ids outside pytest's rootdir are stable from run to run
    rerun = installed.pytest(
        "--wireconf", "--impl=fake_runtime:Adapter", *SELECT, "--lf", "--co", "-q", FAKE_RUNTIME_VERSION="2"
    )
    listed = {line.split("::")[-1] for line in rerun.stdout.splitlines() if "::" in line}
    assert listed == regressions, rerun.stdout[-2000:]
    shutil.rmtree(installed.work / ".pytest_cache")
