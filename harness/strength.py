"""Mutation strength of the corpus: does every MUST / MUST NOT rule have cases that catch its breaking?

Each such rule declares a mutant next to it in ``rules.yaml``: one or more textual edits of the
reference implementation that break that rule only. For each mutant, a copy of ``reference_impl`` is
patched and the cases that cite the rule are run against it. The mutant is *killed* when one of them
fails; it *survives* when all pass (the rule's cases do not test it). A mutant whose edit does not
apply (the reference changed under it) is reported too.

Mutants run in worker processes (one per CPU), each running its share in-process: the patched copy
is first on ``sys.path`` and ``reference_impl`` is dropped from ``sys.modules`` before every run, so
the SDKs and the harness are imported once per worker rather than once per mutant.
"""

from __future__ import annotations

import compileall
import contextlib
import json
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from harness.corpus.loader import Corpus
from harness.corpus.rules import Edit, Rule

REQUIRED_LEVELS = ("MUST", "MUST NOT")
PACKAGE = "reference_impl"


@dataclass(frozen=True)
class MutantResult:
    rule: str
    status: str  # killed, survived, not-applied, no-cases, error
    detail: str = ""


@dataclass
class StrengthReport:
    results: list[MutantResult]
    missing: list[str]  # MUST / MUST NOT rules without a mutant

    def with_status(self, status: str) -> list[MutantResult]:
        return [r for r in self.results if r.status == status]

    @property
    def ok(self) -> bool:
        return not self.missing and all(r.status == "killed" for r in self.results)

    def summary(self) -> str:
        killed = len(self.with_status("killed"))
        missing = len(self.missing)
        return (
            f"mutants killed: {killed}/{len(self.results)}; MUST/MUST NOT rules without a mutant: {missing}"
        )


def apply_edits(package_copy: Path, edits: Iterable[Edit]) -> None:
    """Apply a mutant's edits to a copy of the package; ``ValueError`` when one does not apply."""
    for edit in edits:
        relative = Path(edit.file)
        if relative.parts[0] != PACKAGE:
            raise ValueError(f"{edit.file}: a mutant edits files of {PACKAGE}/ only")
        target = package_copy.parent / relative
        if not target.is_file():
            raise ValueError(f"{edit.file} does not exist")
        text = target.read_text(encoding="utf-8")
        count = text.count(edit.find)
        if count != 1:
            raise ValueError(
                f"{edit.file}: the text to replace occurs {count} times, not once: {edit.find!r}"
            )
        target.write_text(text.replace(edit.find, edit.replace), encoding="utf-8")


class _PackageCopy:
    """The worker's copy of the reference, compiled once; each mutant rewrites only the files it edits.

    Its bytecode is checked against a hash of each file's source (not its modification time, which
    has a resolution of a second and would let a same-sized edit made within that second reuse the
    previous mutant's bytecode), so only the files a mutant edits are compiled again."""

    def __init__(self, source: Path, workdir: Path) -> None:
        self.source = source
        self.root = workdir / PACKAGE
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.copytree(source, self.root, ignore=shutil.ignore_patterns("__pycache__"))
        compileall.compile_dir(
            self.root, quiet=2, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH
        )
        self._edited: set[Path] = set()

    def mutate(self, edits: list[Edit]) -> None:
        """The pristine package with ``edits`` applied; ``ValueError`` when one does not apply."""
        for relative in self._edited:
            shutil.copyfile(self.source / relative, self.root / relative)
        self._edited = set()
        for edit in edits:
            parts = Path(edit.file).parts
            if parts[:1] == (PACKAGE,) and (self.source.joinpath(*parts[1:])).is_file():
                self._edited.add(Path(*parts[1:]))  # anything else is refused by apply_edits
        apply_edits(self.root, edits)


def _run_in_worker(rule: Rule, cases: list[str], copy: _PackageCopy, timeout: float) -> MutantResult:
    """Inside a worker: patch the copy, forget the old modules, run the rule's cases in-process."""
    import pytest

    try:
        copy.mutate(rule.mutant or [])
    except ValueError as exc:
        return MutantResult(rule.id, "not-applied", str(exc))
    for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
        del sys.modules[name]
    # pytest's unraisable-exception plugin forces a full garbage collection at the end of every
    # session, the costliest step of these small runs; the mutants do not need it. Assertion
    # rewriting (pytest applies it to every module of a distribution that has a pytest plugin, the
    # reference included) would parse and rewrite the whole copy again for every mutant, and cache the
    # result by modification time; the reference has no assertions to rewrite.
    args = ["-q", "-x", "-p", "no:cacheprovider", "-p", "no:unraisableexception", "--assert=plain"]
    args += [f"--impl={PACKAGE}.adapter:ReferenceAdapter"]
    args += [f"--case-timeout={timeout:g}", *cases]
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = int(pytest.main(args))
    imported = sys.modules.get(PACKAGE)
    if imported is None or not str(getattr(imported, "__file__", "")).startswith(str(copy.root)):
        return MutantResult(rule.id, "error", f"the run did not import the patched copy ({imported!r})")
    if code == 1:
        return MutantResult(rule.id, "killed")
    if code == 0:
        return MutantResult(rule.id, "survived", f"all {len(cases)} case(s) citing the rule still pass")
    return MutantResult(
        rule.id, "error", f"pytest exited {code} (a usage or internal error; run the cases by hand)"
    )


def _worker_main(job_file: str) -> None:
    """``python -m harness.strength JOBFILE``: run the jobs, print one JSON result per line."""
    job = json.loads(Path(job_file).read_text())
    corpus = Corpus(Path(job["corpus"]))
    source = Path(job["source"])
    with tempfile.TemporaryDirectory(prefix="wireconf-mutant-") as tmp:
        sys.path.insert(0, tmp)
        copy = _PackageCopy(source, Path(tmp))
        for rule_id in job["rules"]:
            rule = corpus.catalogue.rules[rule_id]
            cases = [f"{c.path}::{c.id}" for c in corpus.cases_citing(rule_id)]
            if not cases:
                result = MutantResult(rule_id, "no-cases", "no case cites this rule")
            else:
                result = _run_in_worker(rule, cases, copy, job["timeout"])
            print(json.dumps(asdict(result)), file=sys.__stdout__, flush=True)


def _run_worker(rules: list[str], corpus_root: Path, source: Path, timeout: float) -> Iterator[MutantResult]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(
            {"rules": rules, "corpus": str(corpus_root), "source": str(source), "timeout": timeout}, handle
        )
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness.strength", handle.name], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        done = set()
        for line in proc.stdout:
            result = MutantResult(**json.loads(line))
            done.add(result.rule)
            yield result
        proc.wait()
        for rule_id in rules:
            if rule_id not in done:
                yield MutantResult(
                    rule_id, "error", f"the worker process exited {proc.returncode} before this mutant"
                )
    finally:
        os.unlink(handle.name)


def strength(
    corpus_root: Path,
    rules: Iterable[str] | None = None,
    jobs: int | None = None,
    timeout: float = 5.0,
    progress: Callable[[MutantResult], None] | None = None,
) -> StrengthReport:
    """Run the mutants of ``rules`` (default: every rule that has one) and report each one's fate."""
    import reference_impl

    source = Path(reference_impl.__file__).parent
    corpus = Corpus(corpus_root)
    selected = [corpus.catalogue.rules[r] for r in rules] if rules else list(corpus.catalogue.rules.values())
    missing = [r.id for r in selected if r.level in REQUIRED_LEVELS and not r.mutant]
    with_mutant = [r.id for r in selected if r.mutant]
    workers = max(1, min(jobs or os.cpu_count() or 2, len(with_mutant)))
    shares = [with_mutant[i::workers] for i in range(workers)]
    results: list[MutantResult] = []
    lock = threading.Lock()

    def drain(share: list[str]) -> None:
        for result in _run_worker(share, corpus.root, source, timeout):
            with lock:
                results.append(result)
                if progress is not None:
                    progress(result)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(drain, [share for share in shares if share]))
    order = {rule_id: i for i, rule_id in enumerate(with_mutant)}
    return StrengthReport(sorted(results, key=lambda r: order[r.rule]), missing)


if __name__ == "__main__":
    _worker_main(sys.argv[1])
