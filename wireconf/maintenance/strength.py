"""Mutation strength of the corpus: does every MUST / MUST NOT rule have cases that catch its breaking?

Each such rule declares a mutant next to it in ``rules.yaml``: one or more textual edits of the
reference implementation that break that rule only. For each mutant, a copy of the reference is
patched and the cases that cite the rule are run against it. The mutant is *killed* when one of them
fails; it *survives* when all pass (the rule's cases do not test it). A mutant whose edit does not
apply (the reference changed under it) is reported too.

Mutants run in worker processes (one per CPU), each running its share in one pytest session: the patched copy
is imported ahead of the installed reference, the modules a mutant's edits reach are imported again from it,
and the rule's cases run through pytest's own run protocol. pytest, the corpus, the SDKs and the harness are
set up once per worker rather than once per mutant. A kill counts only when the killing case passes against
the unmutated copy.
"""

from __future__ import annotations

import compileall
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType

import pytest

from wireconf.core.errors import WireconfError
from wireconf.core.import_graph import imports_of, module_name
from wireconf.corpus.loader import Corpus, LoadedCase
from wireconf.corpus.model import CaseBase
from wireconf.corpus.rules import Edit
from wireconf.kinds.registry import open_corpus

REQUIRED_LEVELS = ("MUST", "MUST NOT")
PACKAGE = "wireconf.reference_impl"
"""The reference's package; a mutant's edits name its files from the repository root (``FOLDER``)."""
FOLDER: tuple[str, ...] = tuple(PACKAGE.split("."))


@dataclass(frozen=True)
class MutantResult:
    rule: str
    status: str  # killed, unattributed (a failure naming other rules), equivalent, survived, not-applied,
    # no-cases, error; equivalent: under --profile interop, its cases differ only in representation
    detail: str = ""


@dataclass
class StrengthReport:
    results: list[MutantResult]
    missing: list[str]  # MUST / MUST NOT rules without a mutant
    profile: str = "full"

    def with_status(self, status: str) -> list[MutantResult]:
        return [r for r in self.results if r.status == status]

    @property
    def ok(self) -> bool:
        """Every mutant killed; under ``--profile interop`` one whose change the provider reads as the
        same request (``equivalent``) is no gap of the corpus, and counted apart."""
        allowed = ("killed", "equivalent") if self.profile == "interop" else ("killed",)
        return not self.missing and all(r.status in allowed for r in self.results)

    def summary(self) -> str:
        killed = len(self.with_status("killed"))
        missing = len(self.missing)
        unattributed = len(self.with_status("unattributed"))
        equivalent = len(self.with_status("equivalent"))
        shown = f"provider-equivalent (the provider reads the mutant's request alike): {equivalent}; "
        return (
            f"mutants killed: {killed}/{len(self.results)} (each by a failure that names its rule); "
            f"killed by failures that name other rules: {unattributed}; "
            + (shown if self.profile == "interop" else "")
            + f"MUST/MUST NOT rules without a mutant: {missing}"
        )


class MutantError(WireconfError, ValueError):
    """A mutant whose edits do not apply to the reference (a file outside it, missing, or a text to
    replace that does not occur exactly once)."""


def apply_edits(package_copy: Path, edits: Iterable[Edit]) -> None:
    """Apply a mutant's edits to a copy of the package; ``MutantError`` (a ``ValueError``) when one does
    not apply."""
    for edit in edits:
        parts = Path(edit.file).parts
        if parts[: len(FOLDER)] != FOLDER or len(parts) == len(FOLDER):
            raise MutantError(f"{edit.file}: a mutant edits files of {'/'.join(FOLDER)}/ only")
        target = package_copy.joinpath(*parts[len(FOLDER) :])
        if not target.is_file():
            raise MutantError(f"{edit.file} does not exist")
        text = target.read_text(encoding="utf-8")
        count = text.count(edit.find)
        if count != 1:
            raise MutantError(
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
        self.root = workdir.joinpath(*FOLDER)
        shutil.rmtree(self.root, ignore_errors=True)
        shutil.copytree(source, self.root, ignore=shutil.ignore_patterns("__pycache__"))
        compileall.compile_dir(
            self.root, quiet=2, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH
        )
        self._edited: set[Path] = set()
        self.changed: set[Path] = set()
        """Files (relative to the package) rewritten since the caller last cleared this set."""

    def mutate(self, edits: list[Edit]) -> None:
        """The pristine package with ``edits`` applied; ``MutantError`` (a ``ValueError``) when one does
        not apply."""
        for relative in self._edited:
            shutil.copyfile(self.source / relative, self.root / relative)
        self.changed |= self._edited
        self._edited = set()
        for edit in edits:
            parts = Path(edit.file).parts[len(FOLDER) :]
            if (
                Path(edit.file).parts[: len(FOLDER)] == FOLDER
                and parts
                and self.source.joinpath(*parts).is_file()
            ):
                self._edited.add(Path(*parts))  # anything else is refused by apply_edits
        self.changed |= self._edited
        apply_edits(self.root, edits)


class _ImportGraph:
    """Which modules of the package import which, read once from the pristine copy, so that a mutant
    imports again only what its edits can reach: the modules of the files rewritten, every module that
    imports one of those (at any depth, an import inside a function included) and every submodule of a
    package imported again. The others stay the pristine modules imported before, which run exactly the
    pristine source (the reference keeps no state in its modules, and the pristine run of every
    killing case at the end would show one that did)."""

    def __init__(self, package: Path, name: str = PACKAGE) -> None:
        self.package = package
        self.name = name
        self.top = package.parents[name.count(".")]  # the folder that holds the top package
        self.modules = {module_name(path, self.top): path for path in sorted(package.rglob("*.py"))}
        self.importers: dict[str, set[str]] = {name: set() for name in self.modules}
        for name, path in self.modules.items():
            # importing a.b.c runs a and a.b first: a change to a package reaches its submodules, and
            # through them their importers (``reached``)
            for target in imports_of(name, path, self.modules):
                self.importers[target].add(name)

    def reached(self, files: Iterable[Path]) -> set[str] | None:
        """The modules to import again once ``files`` changed; ``None`` (all of them) for a file that is
        not one of the package's modules."""
        todo = []
        for relative in files:
            name = module_name(self.package / relative, self.top) if relative.suffix == ".py" else ""
            if name not in self.modules:
                return None
            todo.append(name)
        reached: set[str] = set()
        while todo:
            name = todo.pop()
            if name not in reached:
                reached.add(name)
                todo.extend(self.importers[name])
                todo.extend(m for m in self.modules if m.startswith(f"{name}."))
        return reached

    def forget(self, changed: Iterable[Path]) -> None:
        """Drop from ``sys.modules`` the modules ``changed`` files reach, so the next import loads them."""
        stale = self.reached(changed)
        root = self.name
        for name in [m for m in sys.modules if m == root or m.startswith(f"{root}.")]:
            if stale is None or name in stale or name not in self.modules:
                module = sys.modules.pop(name)
                parent, _, child = name.rpartition(".")
                # a package kept still names the old submodule (``from package import module`` would
                # take it from there): forget that too, so that the import loads the new one
                if getattr(sys.modules.get(parent), child, None) is module:
                    delattr(sys.modules[parent], child)


IMPL = f"{PACKAGE}.adapter:ReferenceAdapter"


def _session_args(corpus_root: Path, timeout: float, profile: str = "full") -> list[str]:
    """The worker's one pytest session: the whole corpus collected once, nothing shown."""
    # pytest's unraisable-exception plugin forces a full garbage collection at the end of a session;
    # assertion rewriting (pytest applies it to every module of a distribution that has a pytest
    # plugin, the reference included) would parse and rewrite the copy again after every edit, and the
    # reference has no assertions to rewrite
    args = ["-q", "-p", "no:cacheprovider", "-p", "no:unraisableexception", "--assert=plain"]
    # the thread runner: each mutant's adapter is swapped in this process (``_MutantLoop``), which a
    # runner process forked once per session would never see
    args += [f"--impl={IMPL}", f"--case-timeout={timeout:g}", "--case-runner=thread", f"--profile={profile}"]
    return [*args, str(corpus_root)]


class _MutantLoop:
    """A pytest plugin that replaces the worker's test loop. For each mutant of its share, the copy is
    patched, the modules its edits reach (``_ImportGraph``) are imported again, the adapter is loaded
    and checked by ``load_impl`` (as ``--impl`` is) and becomes the session's, and the cases citing the
    mutant's rule run through pytest's own run protocol (the item's setup calls the adapter, its call
    judges) until one fails. Configuring pytest, collecting the corpus and importing the SDKs happen
    once per worker, not once per mutant.

    A kill counts only when the killing case passes against the unmutated copy: once the share is done,
    each killing case runs again on the pristine package, which also shows that no mutant left a trace
    in the session that the cases after it saw."""

    def __init__(
        self, corpus: Corpus, rule_ids: list[str], copy: _PackageCopy, emit: Callable[[MutantResult], None]
    ) -> None:
        self.corpus = corpus
        self.rule_ids = rule_ids
        self.copy = copy
        self.graph = _ImportGraph(copy.root)
        self.emit = emit

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        from _pytest.runner import runtestprotocol

        from wireconf.pytest_plugin.impl_loader import load_impl
        from wireconf.pytest_plugin.items import CaseItem
        from wireconf.pytest_plugin.session import get_session
        from wireconf.runtimes.python_impl import ImplError

        wireconf = get_session(session.config)
        items = {
            (Path(item.path).resolve(), item.loaded.id): item
            for item in session.items
            if isinstance(item, CaseItem)
        }

        def install(edits: list[Edit]) -> str | None:
            """Patch the copy and make it the session's adapter; what went wrong, if it could not be."""
            self.copy.mutate(edits)  # ValueError when an edit does not apply
            self.graph.forget(self.copy.changed)
            self.copy.changed.clear()
            try:
                loaded = load_impl(IMPL)
            except ImplError as exc:
                return f"the mutated reference does not load: {exc}"
            imported = str(getattr(sys.modules.get(PACKAGE), "__file__", ""))
            if not imported.startswith(str(self.copy.root)):
                return f"the run did not import the patched copy ({imported!r})"
            wireconf.impl = loaded
            return None

        representation: list[str] = []
        """The cases of the last mutant that differed only in representation (``--profile interop``)."""

        def failures(
            cases: list[LoadedCase[CaseBase]], rule_id: str | None = None
        ) -> Iterator[tuple[str, list[str]]]:
            """The cases of ``cases`` whose run reports a failure (setup or verdict), each with the rules
            its differences break; with ``rule_id``, up to the first failure that names that rule."""
            representation.clear()
            for case in cases:
                item = items[(case.path.resolve(), case.id)]
                # the item is run once per mutant: what an earlier run recorded (its differences and
                # their rules) must not be read as this run's
                item.user_properties.clear()
                reports = runtestprotocol(item, log=False, nextitem=None)
                if any(_representation_only(report) for report in reports):
                    representation.append(case.id)
                if any(report.failed for report in reports):
                    named = _rules_named(reports)
                    yield case.id, named
                    if rule_id is None or rule_id in named:
                        return

        def first_failure(cases: list[LoadedCase[CaseBase]]) -> str | None:
            """The first of ``cases`` whose run reports a failure, as pytest -x stops."""
            return next((case_id for case_id, _ in failures(cases)), None)

        killed: dict[str, list[tuple[str, str | None]]] = {}
        """The killing case's id -> the rules whose mutants it killed, each with why the kill is not
        attributed to the rule (``None`` when a failure names it)."""
        for rule_id in self.rule_ids:
            rule = self.corpus.catalogue.rules[rule_id]
            cases = self.corpus.cases_citing(rule_id)
            missing = [c.id for c in cases if (c.path.resolve(), c.id) not in items]
            if not cases:
                self.emit(MutantResult(rule_id, "no-cases", "no case cites this rule"))
                continue
            if missing:
                self.emit(MutantResult(rule_id, "error", f"case(s) not collected: {', '.join(missing)}"))
                continue
            try:
                problem = install(rule.mutant or [])
            except ValueError as exc:
                self.emit(MutantResult(rule_id, "not-applied", str(exc)))
                continue
            if problem is not None:
                self.emit(MutantResult(rule_id, "error", problem))
                continue
            failed = list(failures(cases, rule_id))
            if not failed and representation and rule.provider_equivalent:
                detail = (
                    f"{', '.join(representation)} differ(s) only in representation: the provider reads "
                    "the mutant's request as the reference's (the rule says so: provider_equivalent)"
                )
                self.emit(MutantResult(rule_id, "equivalent", detail))
            elif not failed and representation:
                detail = (
                    f"{', '.join(representation)} differ(s) only in representation, and the rule does not "
                    "say so: declare `provider_equivalent` on it, or give it a case the provider tells apart"
                )
                self.emit(MutantResult(rule_id, "survived", detail))
            elif not failed:
                detail = f"all {len(cases)} case(s) citing the rule still pass"
                self.emit(MutantResult(rule_id, "survived", detail))
            elif rule_id not in failed[-1][1]:
                named = sorted({r for _, rules in failed for r in rules}) or ["no rule"]
                detail = (
                    f"killed by {', '.join(c for c, _ in failed)}, but no failure names the rule "
                    f"(they name {', '.join(named)}): its `governs` does not declare the difference"
                )
                killed.setdefault(failed[0][0], []).append((rule_id, detail))
            else:
                killed.setdefault(failed[-1][0], []).append((rule_id, None))
        self._confirm(killed, install, first_failure)
        return True

    def _confirm(
        self,
        killed: dict[str, list[tuple[str, str | None]]],
        install: Callable[[list[Edit]], str | None],
        first_failure: Callable[[list[LoadedCase[CaseBase]]], str | None],
    ) -> None:
        """Each killing case against the pristine copy: a kill stands only where that case passes."""
        if not killed:
            return
        problem = install([])
        by_id = {case.id: case for case in self.corpus.cases() if case.id in killed}
        for case_id, rule_ids in killed.items():
            if problem is None and first_failure([by_id[case_id]]) is None:
                for rule_id, unattributed in rule_ids:
                    if unattributed is None:
                        self.emit(MutantResult(rule_id, "killed", f"by {case_id}"))
                    else:
                        self.emit(MutantResult(rule_id, "unattributed", unattributed))
                continue
            why = problem or f"{case_id} fails against the unmutated reference too, not only under the mutant"
            for rule_id, _ in rule_ids:
                self.emit(MutantResult(rule_id, "error", why))


def _representation_only(report: pytest.TestReport) -> bool:
    """A case xfailed under ``--profile interop`` because every difference was representation."""
    from wireconf.pytest_plugin.summary import PROP_DIFFERENCES, PROP_OUTSIDE_PROFILE

    props = dict(report.user_properties)
    if PROP_OUTSIDE_PROFILE not in props or PROP_DIFFERENCES not in props:
        return False
    found = json.loads(str(props[PROP_DIFFERENCES]))
    return bool(found) and all(d.get("representation") for d in found)


def _rules_named(reports: Iterable[pytest.TestReport]) -> list[str]:
    """The rules a failing case's differences break, as its report carries them (its attributions)."""
    from wireconf.pytest_plugin.summary import PROP_DIFFERENCES

    named: list[str] = []
    for report in reports:
        for key, value in report.user_properties:
            if key == PROP_DIFFERENCES:
                named += [r for d in json.loads(str(value)) for r in d.get("rules") or ()]
    return list(dict.fromkeys(named))


class _CopyFinder(importlib.abc.MetaPathFinder):
    """Imports the reference package from the worker's patched copy, ahead of the installed one; its
    submodules follow through the package's ``__path__``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != PACKAGE:
            return None
        return importlib.util.spec_from_file_location(
            fullname, self.root / "__init__.py", submodule_search_locations=[str(self.root)]
        )


def _worker_main(job_file: str) -> None:
    """``python -m wireconf.maintenance.strength JOBFILE``: run the jobs, print one JSON result per line."""
    job = json.loads(Path(job_file).read_text())
    corpus = open_corpus(Path(job["corpus"]))
    source = Path(job["source"])

    def emit(result: MutantResult) -> None:
        print(json.dumps(asdict(result)), file=sys.__stdout__, flush=True)

    with tempfile.TemporaryDirectory(prefix="wireconf-mutant-") as tmp:
        copy = _PackageCopy(source, Path(tmp))
        sys.meta_path.insert(0, _CopyFinder(copy.root))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]  # imported before the finder: the copy's modules replace them
        loop = _MutantLoop(corpus, job["rules"], copy, emit)
        args = _session_args(corpus.root, job["timeout"], job.get("profile", "full"))
        with (
            open(os.devnull, "w") as sink,
            contextlib.redirect_stdout(sink),
            contextlib.redirect_stderr(sink),
        ):
            code = pytest.main(args, plugins=[loop])
        if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
            print(f"the mutants' pytest session exited {int(code)}", file=sys.stderr)


def _run_worker(
    rules: list[str], corpus_root: Path, source: Path, timeout: float, profile: str = "full"
) -> Iterator[MutantResult]:
    job = {"rules": rules, "corpus": str(corpus_root), "source": str(source), "timeout": timeout}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump({**job, "profile": profile}, handle)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "wireconf.maintenance.strength", handle.name],
            stdout=subprocess.PIPE,
            text=True,
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
    profile: str = "full",
) -> StrengthReport:
    """Run the mutants of ``rules`` (default: every rule that has one) and report each one's fate, the
    cases judged under ``profile`` (``interop``: a mutant whose cases differ only in representation is
    ``equivalent``)."""
    import wireconf.reference_impl

    source = Path(wireconf.reference_impl.__file__).parent
    corpus = open_corpus(corpus_root)
    selected = [corpus.catalogue.rules[r] for r in rules] if rules else list(corpus.catalogue.rules.values())
    missing = [r.id for r in selected if r.level in REQUIRED_LEVELS and not r.mutant]
    with_mutant = [r.id for r in selected if r.mutant]
    workers = max(1, min(jobs or os.cpu_count() or 2, len(with_mutant)))
    shares = [with_mutant[i::workers] for i in range(workers)]
    results: list[MutantResult] = []
    lock = threading.Lock()

    def drain(share: list[str]) -> None:
        for result in _run_worker(share, corpus.root, source, timeout, profile):
            with lock:
                results.append(result)
                if progress is not None:
                    progress(result)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(drain, [share for share in shares if share]))
    order = {rule_id: i for i, rule_id in enumerate(with_mutant)}
    return StrengthReport(sorted(results, key=lambda r: order[r.rule]), missing, profile)


if __name__ == "__main__":
    _worker_main(sys.argv[1])
