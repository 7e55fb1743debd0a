"""The per-run state of the plugin: the implementation under test, corpora, cassettes, the timer and the
tally. Kept on ``config.stash`` (never in module globals) so that nested pytester runs stay separate.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from wireconf.adapter_contract import reads_recorded
from wireconf.cassettes.recording import RecordingPolicy
from wireconf.cassettes.store import CassetteStore
from wireconf.cassettes.watch import CassetteWatch
from wireconf.corpus.identity import CorpusIdentity, case_fingerprint, corpus_identity
from wireconf.corpus.installed import PACKAGED
from wireconf.corpus.loader import Corpus, LoadedCase, find_corpus_root, load_corpus
from wireconf.corpus.model import CaseBase
from wireconf.judging.waivers import Waiver
from wireconf.kinds.base import HarnessContext
from wireconf.kinds.registry import CASE_ADAPTER
from wireconf.pytest_plugin.impl_loader import load_impl
from wireconf.pytest_plugin.options import DEFAULT_IMPL
from wireconf.pytest_plugin.runners import CaseRunner, Plan, make_runner
from wireconf.pytest_plugin.summary import Tally
from wireconf.runtimes.python_impl import ImplError, LoadedImpl
from wireconf.sdk.replay import SdkReplay

if TYPE_CHECKING:
    from wireconf.pytest_plugin.case_host import RunnableCase

CASSETTES_DIR = "cassettes"


@lru_cache(maxsize=256)
def corpus_root_of(directory: Path) -> Path | None:
    """The corpus a resolved directory lies in (the nearest ``rules.yaml`` at or above it), cached."""
    return find_corpus_root(directory)


@lru_cache(maxsize=1024)
def resolved_folder(directory: Path) -> Path:
    """``directory.resolve()``, cached: collecting a corpus asks it of the same few hundred folders for
    thousands of files, and resolving looks up every component of the path."""
    return directory.resolve()


def resolved_file(path: Path) -> Path:
    """``path.resolve()``, its folder resolved once per process (``resolved_folder``)."""
    if path.is_symlink():
        return path.resolve()
    return resolved_folder(path.parent) / path.name


@lru_cache(maxsize=1024)
def shown_path(path: Path, rootpath: Path, corpus_root: Path) -> str:
    """How reports name a corpus file, the same on every machine: the installed corpus (a wheel's copy,
    wherever its site-packages lies, even inside the project) reads ``cases/wire/...`` as in a checkout;
    another corpus is named relative to pytest's rootdir when inside it, else to the folder that holds
    the corpus. Resolving a path asks the file system about each of its parts: done once per file."""
    resolved = path.resolve()
    installed = PACKAGED in corpus_root.parents
    bases = (corpus_root.parent,) if installed else (rootpath.resolve(), corpus_root.parent)
    for base in bases:
        if resolved.is_relative_to(base):
            return resolved.relative_to(base).as_posix()
    return resolved.as_posix()


class WireconfSession:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        spec = config.getoption("wireconf_impl") or DEFAULT_IMPL
        try:
            self.impl: LoadedImpl = load_impl(spec)
        except ImplError as exc:
            raise pytest.UsageError(str(exc)) from exc
        self.timeout: float = config.getoption("wireconf_case_timeout")
        cassettes = config.getoption("wireconf_cassettes")
        self.cassettes_option: Path | None = Path(cassettes).resolve() if cassettes else None
        self.runner_choice: str = config.getoption("wireconf_case_runner")
        self._runner: CaseRunner | None = None
        self.replay = SdkReplay()
        self.tally = Tally()
        self.case_items: dict[str, RunnableCase] = {}
        """Every collected case by node id (the process runner finds a case's item by its id)."""
        self.plan = Plan()
        """The cases in the order pytest runs them, written by the run loop (``active``), read by the
        runner to start cases early."""
        self.on_recorded: Callable[[str], None] | None = None
        """Told the path of each cassette a case writes, as it is written (set by the runner)."""
        self.profile: str = config.getoption("wireconf_profile")
        self.waivers: list[Waiver] = []  # the baseline's (set by the CI gate, wireconf.pytest_plugin.ci)
        self.updating_baseline = False
        self._corpora: dict[Path, Corpus] = {}
        self._corpus_of: dict[int, tuple[Path, Corpus]] = {}  # by corpus root object (``id``)
        self._contexts: dict[Path, HarnessContext] = {}
        self._context_of: dict[int, tuple[Path, HarnessContext]] = {}  # by corpus root object (``id``)
        self._identities: dict[Path, CorpusIdentity] = {}
        self._watches: dict[Path, CassetteWatch | None] = {}
        self._watch_of: dict[int, tuple[Path, CassetteWatch | None]] = {}  # by corpus root object

    @property
    def runner(self) -> CaseRunner:
        """Where cases run (``wireconf.pytest_plugin.runners``), chosen at the first case."""
        if self._runner is None:
            self._runner = make_runner(self, self.runner_choice)
        return self._runner

    @property
    def used_runner(self) -> CaseRunner | None:
        """The runner, if a case ran in this process."""
        return self._runner

    @property
    def records(self) -> bool:
        """Whether this run may record (``--record-mode`` other than none)."""
        return policy_of(self.config).mode != "none"

    def close(self) -> None:
        """Stop the runner (and an out-of-process runtime) and the cassette watches; keep what was
        derived from the corpora's files (``Corpus.save_derived``)."""
        for corpus in self._corpora.values():
            corpus.save_derived()
        if self._runner is not None:
            self._runner.close()
        for watch in self._watches.values():
            if watch is not None:
                watch.close()
        self._watches.clear()
        self._watch_of.clear()
        close = getattr(self.impl.adapter, "close", None)
        if callable(close):
            close()

    def watch(self, corpus_root: Path) -> CassetteWatch | None:
        """The watch on this corpus's cassettes folder (``None`` where it cannot be had)."""
        known = self._watch_of.get(id(corpus_root))  # asked before every case: a path hashes in Python
        if known is not None and known[0] is corpus_root:
            return known[1]
        root = self.cassettes_root(corpus_root)
        if root not in self._watches:
            self._watches[root] = CassetteWatch.start(root)
        self._watch_of[id(corpus_root)] = (corpus_root, self._watches[root])
        return self._watches[root]

    def _recorded(self, path: str | Path) -> None:
        if self.on_recorded is not None:
            self.on_recorded(str(path))

    @property
    def impl_label(self) -> str:
        return f"{self.impl.name} {self.impl.version}"

    def corpus(self, root: Path) -> Corpus:
        """The corpus under ``root``, loaded once (asked for every case: found by the path object first)."""
        known = self._corpus_of.get(id(root))
        if known is not None and known[0] is root:
            return known[1]
        if root not in self._corpora:
            self._corpora[root] = load_corpus(root, CASE_ADAPTER)
        self._corpus_of[id(root)] = (root, self._corpora[root])
        return self._corpora[root]

    def loaded_corpora(self) -> list[Corpus]:
        """Every corpus this session loaded (collected a file of)."""
        return list(self._corpora.values())

    def cassettes_root(self, corpus_root: Path) -> Path:
        """``--cassettes`` if given, else the ``cassettes`` folder beside the corpus."""
        return self.cassettes_option or corpus_root.parent / CASSETTES_DIR

    def argument_corpora(self) -> list[Path]:
        """The corpora the command line's paths lie in (at or above each path), for the header; cases
        run from other corpora still name theirs in every report line."""
        roots: list[Path] = []
        for arg in self.config.args:
            path = self.config.invocation_params.dir / arg.split("::", 1)[0]
            root = corpus_root_of(path.resolve()) if path.exists() else None
            if root is not None and root not in roots:
                roots.append(root)
        return roots

    def identity(self, corpus_root: Path) -> CorpusIdentity:
        """The corpus's version and content hash (with the cassettes this run uses), computed once."""
        if corpus_root not in self._identities:
            self._identities[corpus_root] = corpus_identity(corpus_root, self.cassettes_root(corpus_root))
        return self._identities[corpus_root]

    def fingerprint(self, corpus_root: Path, case: LoadedCase[CaseBase]) -> str:
        return case_fingerprint(case, self.context(corpus_root).cassettes)

    def context(self, corpus_root: Path) -> HarnessContext:
        """The cassettes, SDK replay and record policy of a corpus's cases (asked for every case)."""
        known = self._context_of.get(id(corpus_root))  # the objects are kept: an id stays theirs
        if known is not None and known[0] is corpus_root:
            return known[1]
        root = self.cassettes_root(corpus_root)
        if root not in self._contexts:
            self._contexts[root] = HarnessContext(
                CassetteStore(root),
                self.replay,
                policy_of(self.config),
                on_written=self._recorded,
                reads_recorded=reads_recorded(self.impl.adapter),
            )
        self._context_of[id(corpus_root)] = (corpus_root, self._contexts[root])
        return self._contexts[root]


SESSION_KEY = pytest.StashKey[WireconfSession]()
POLICY_KEY = pytest.StashKey[RecordingPolicy]()
"""The run's record-mode policy, set by ``wireconf.pytest_plugin.record_mode`` (here, in the pytest layer,
so that ``cassettes.recording`` imports no pytest: an exec runtime's helper reads it before its hello)."""


def policy_of(config: pytest.Config) -> RecordingPolicy:
    """The session's policy (replay-only when record mode set none)."""
    return config.stash.get(POLICY_KEY, None) or RecordingPolicy()


def get_session(config: pytest.Config) -> WireconfSession:
    return config.stash[SESSION_KEY]
