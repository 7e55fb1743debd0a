"""Cassettes that no case of the corpus refers to, reported after a run that selected every case.

Only a full run can say a cassette is unused: a run of a subset would call every cassette of the
other cases unused. "Full" means the cases collected (after ``-k``, ``--kind``, ``--api`` and any
other deselection) are exactly the corpus's cases. Under pytest-xdist each worker collects the whole
selection, so each can tell, and the controller prints what a worker sent.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from wireconf.cassettes.store import CASSETTE_SUFFIX
from wireconf.corpus.loader import Corpus
from wireconf.corpus.model import CassetteRef


def referenced(corpus: Corpus) -> set[str]:
    """The cassette names the corpus's cases use (``response.cassette`` and e2e ``cassette``)."""
    names = set()
    for case in corpus.cases():
        response = getattr(case.model, "response", None)
        if isinstance(response, CassetteRef):
            names.add(response.cassette)
        cassette = getattr(case.model, "cassette", None)
        if isinstance(cassette, str):
            names.add(cassette)
    return names


def cassette_names(root: Path) -> set[str]:
    """Every cassette under ``root`` by name (``openai/chat-x``), hidden files and folders left out."""
    if not root.is_dir():
        return set()
    names = set()
    for path in root.rglob(f"*{CASSETTE_SUFFIX}"):
        relative = path.relative_to(root)
        if not any(part.startswith(".") for part in relative.parts):
            names.add(relative.with_suffix("").as_posix())
    return names


def is_full_run(corpus: Corpus, selected_ids: Iterable[str]) -> bool:
    """Whether the selected case ids are exactly the corpus's cases."""
    return set(selected_ids) == {case.id for case in corpus.cases()}


def unused(corpus: Corpus, cassettes_root: Path) -> list[str]:
    return sorted(cassette_names(cassettes_root) - referenced(corpus))
