"""Where wireconf's own corpus is, installed or in a checkout, and checking a corpus path given by hand.

A wheel carries the corpus inside the harness package (``wireconf/_corpus/cases`` and
``wireconf/_corpus/cassettes``, copied there by the build hook in ``setup.py``); a source checkout, and
an editable install of one (``pip install -e .``), has it at the top of the repository (``cases/``,
``cassettes/``). Either way the cassettes sit beside the cases, where the harness looks by default.
"""

from __future__ import annotations

from pathlib import Path

import wireconf
from wireconf.core.errors import WireconfError
from wireconf.corpus.rules import RULES_FILE

PACKAGED = Path(wireconf.__file__).resolve().parent / "_corpus"
"""The corpus inside an installed wheel."""

CHECKOUT = Path(wireconf.__file__).resolve().parent.parent
"""The repository root, when the harness runs from a source checkout."""

CASES_DIR = "cases"


class CorpusNotFound(WireconfError):
    """A corpus that is not there; the message says which path and why, in one line."""


def installed_corpus() -> Path:
    """The folder of wireconf's own corpus (the one holding ``rules.yaml``): the wheel's copy, else the
    checkout's."""
    for base in (PACKAGED, CHECKOUT):
        if (base / CASES_DIR / RULES_FILE).is_file():
            return base / CASES_DIR
    raise CorpusNotFound(
        f"wireconf's corpus is not installed: neither {PACKAGED / CASES_DIR} nor {CHECKOUT / CASES_DIR} "
        f"holds {RULES_FILE} (reinstall wireconf, or pass a corpus folder)"
    )


def corpus_folder(path: str | Path | None) -> Path:
    """``path`` checked to be a corpus folder (one that holds ``rules.yaml``); ``None`` is the installed
    corpus. Raises ``CorpusNotFound`` naming the path and what is missing."""
    if path is None:
        return installed_corpus()
    folder = Path(path)
    if not folder.exists():
        raise CorpusNotFound(f"no corpus at {folder}: no such folder")
    if not folder.is_dir():
        raise CorpusNotFound(f"no corpus at {folder}: not a folder (a corpus is the folder of {RULES_FILE})")
    if not (folder / RULES_FILE).is_file():
        raise CorpusNotFound(f"no corpus at {folder}: the folder holds no {RULES_FILE}")
    return folder
