"""The per-run state of the plugin: the implementation under test, corpora, cassettes, the timer and the
tally. Kept on ``config.stash`` (never in module globals) so that nested pytester runs stay separate.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import pytest

from harness.cassettes.recording import policy_of
from harness.cassettes.store import CassetteStore
from harness.corpus.identity import CorpusIdentity, case_fingerprint, corpus_identity
from harness.corpus.loader import Corpus, LoadedCase, find_corpus_root, load_corpus
from harness.impl_loader import ImplError, LoadedImpl, load_impl
from harness.kinds.base import HarnessContext
from harness.pytest_plugin.summary import Tally
from harness.pytest_plugin.timeout import TimedRunner
from harness.reports.waivers import Waiver
from harness.sdk.replay import SdkReplay

CASSETTES_DIR = "cassettes"


@lru_cache(maxsize=256)
def corpus_root_of(directory: Path) -> Path | None:
    """The corpus a resolved directory lies in (the nearest ``rules.yaml`` at or above it), cached."""
    return find_corpus_root(directory)


class WireconfSession:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        spec = config.getoption("wireconf_impl")
        try:
            self.impl: LoadedImpl = load_impl(spec)
        except ImplError as exc:
            raise pytest.UsageError(str(exc)) from exc
        self.timeout: float = config.getoption("wireconf_case_timeout")
        cassettes = config.getoption("wireconf_cassettes")
        self.cassettes_option: Path | None = Path(cassettes).resolve() if cassettes else None
        self.runner = TimedRunner()
        self.replay = SdkReplay()
        self.tally = Tally()
        self.profile: str = config.getoption("wireconf_profile")
        self.waivers: list[Waiver] = []  # the baseline's (set by the CI gate, harness.pytest_plugin.ci)
        self.updating_baseline = False
        self._corpora: dict[Path, Corpus] = {}
        self._contexts: dict[Path, HarnessContext] = {}
        self._identities: dict[Path, CorpusIdentity] = {}

    @property
    def impl_label(self) -> str:
        return f"{self.impl.name} {self.impl.version}"

    def corpus(self, root: Path) -> Corpus:
        """The corpus under ``root``, loaded once."""
        if root not in self._corpora:
            self._corpora[root] = load_corpus(root)
        return self._corpora[root]

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

    def fingerprint(self, corpus_root: Path, case: LoadedCase) -> str:
        return case_fingerprint(case, self.context(corpus_root).cassettes)

    def context(self, corpus_root: Path) -> HarnessContext:
        root = self.cassettes_root(corpus_root)
        if root not in self._contexts:
            self._contexts[root] = HarnessContext(CassetteStore(root), self.replay, policy_of(self.config))
        return self._contexts[root]


SESSION_KEY = pytest.StashKey[WireconfSession]()


def get_session(config: pytest.Config) -> WireconfSession:
    return config.stash[SESSION_KEY]
