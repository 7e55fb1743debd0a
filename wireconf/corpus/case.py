"""The records the loader makes of a case file: a valid case with where it came from, or a problem.

They live apart from the loader so that the kinds, which read cases, never import the loader (which
builds the case model from the kinds): the import graph stays one-way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from wireconf.core.yaml_source import LineDict, line_of
from wireconf.corpus.model import CaseBase

ModelT = TypeVar("ModelT", bound=CaseBase, covariant=True)


@dataclass(frozen=True)
class LoadedCase(Generic[ModelT]):
    """A valid case with where it came from; ``raw`` is the mapping as written (anchors resolved).
    ``model`` is the case model of its kind (``LoadedCase[E2eCase]`` in the e2e kind)."""

    model: ModelT
    raw: LineDict
    path: Path

    @property
    def id(self) -> str:
        return self.model.id

    @property
    def kind(self) -> str:
        return self.model.kind

    @property
    def api(self) -> str:
        return self.model.api

    @property
    def line(self) -> int:
        return self.raw.line

    def line_of(self, *loc: Any) -> int:
        return line_of(self.raw, loc)

    @property
    def location(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Problem:
    """Something in a case file that keeps a case (or the whole file) from running."""

    path: Path
    line: int
    name: str
    message: str
    unreadable: bool = False
    """The whole file could not be read (not UTF-8, not YAML, refused by the bounds): a run that collects
    from its corpus fails on it whatever it selects (``wireconf.pytest_plugin.items.unreadable_items``)."""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.name}: {self.message}"
