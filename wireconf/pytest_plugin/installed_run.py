"""``--wireconf``: what the command line's paths mean when the installed corpus is run.

The installed corpus replaces pytest's default paths. A path on the command line that lies in it,
written as docs/ci.md and pytest print them (``wire/openai.chat/options.yaml::<case id>``, relative to
the corpus folder), as reports locate cases (``cases/wire/...``) or in full, selects from it: the
corpus is collected whole, so every node id reads the same as in a run without selection (``--lf``
finds them), and the cases outside the selection are deselected. A path elsewhere (``extra-cases/``,
the project's own tests) is run besides the whole corpus.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from wireconf.corpus.installed import CorpusNotFound, installed_corpus

SELECTIONS_KEY = pytest.StashKey[list["Selection"]]()


@dataclass(frozen=True)
class Selection:
    """A file or folder of the corpus (resolved), and a case id within a file when the path had one."""

    path: Path
    name: str

    def holds(self, item: pytest.Item) -> bool:
        if self.name and item.name != self.name:
            return False
        return Path(item.path).resolve().is_relative_to(self.path)


def plan_installed_run(config: pytest.Config) -> None:
    """Set ``config.args`` to the corpus plus the paths outside it; keep the selections within it."""
    try:
        root = installed_corpus().resolve()
    except CorpusNotFound as exc:
        raise pytest.UsageError(f"--wireconf: {exc}") from exc
    args = [] if config.args_source != pytest.Config.ArgsSource.ARGS else list(config.args)
    selections, others = [], []
    for arg in args:
        selection = _selection(config.invocation_params.dir, arg, root)
        if selection is None:
            others.append(arg)
        else:
            selections.append(selection)
    config.args = [*others, str(root)]
    config.stash[SELECTIONS_KEY] = selections


def _selection(here: Path, arg: str, root: Path) -> Selection | None:
    path, _, name = arg.partition("::")
    if not path:
        return None
    for base in (here, root, root.parent):
        candidate = (base / path).resolve()
        if candidate.exists():
            return Selection(candidate, name) if candidate.is_relative_to(root) else None
    return None


def deselect_outside(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the corpus's items that a selection holds, and every item from elsewhere."""
    selections = config.stash.get(SELECTIONS_KEY, [])
    if not selections:
        return
    root = installed_corpus().resolve()
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        in_corpus = Path(item.path).resolve().is_relative_to(root)
        held = not in_corpus or any(selection.holds(item) for selection in selections)
        (keep if held else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
