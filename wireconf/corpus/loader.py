"""The corpus: every case file under a root that holds ``rules.yaml``, loaded once, problems kept.

Loading never raises. A file that is not YAML, a case with an unknown field, a missing expectation, a
duplicate id or an unknown rule becomes a ``Problem`` with the file and line; every other case loads.
Files are read in sorted order so that "the second occurrence is the duplicate" is deterministic, on
every xdist worker alike. Paths with a component starting with ``_`` hold data for cases (fixtures,
documents), not cases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from wireconf.core.untyped import YAML
from wireconf.core.yaml_source import LineDict, YamlSyntaxError, line_of
from wireconf.corpus.case import LoadedCase, Problem
from wireconf.corpus.model import CaseBase
from wireconf.corpus.parsed_files import ParsedFiles
from wireconf.corpus.rules import RULES_FILE, Catalogue, load_catalogue

T = TypeVar("T")

__all__ = ["Corpus", "Entry", "LoadedCase", "Problem", "find_corpus_root", "is_case_file", "load_corpus"]

Entry = LoadedCase[CaseBase] | Problem


def find_corpus_root(path: Path) -> Path | None:
    """The nearest directory at or above ``path`` that holds ``rules.yaml``."""
    for candidate in [path, *path.parents] if path.is_dir() else path.parents:
        if (candidate / RULES_FILE).is_file():
            return candidate
    return None


def is_case_file(path: Path, root: Path) -> bool:
    if path.suffix not in (".yaml", ".yml") or path.name == RULES_FILE:
        return False
    try:
        rel = path.relative_to(root)
    except ValueError:
        return False
    return not any(part.startswith(("_", ".")) for part in rel.parts)


def _format_errors(exc: ValidationError, raw: YAML, base: list[Any], kind: Any) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for err in exc.errors(include_url=False):
        loc = list(err["loc"])
        if loc and loc[0] == kind:  # the discriminated union prefixes the tag; it is not in the file
            loc = loc[1:]
        where = ".".join(str(p) for p in loc)
        message = err["msg"]
        if err["type"] == "extra_forbidden":
            message = f"unknown field {loc[-1]!r}" if loc else message
        elif err["type"] == "missing":
            message = f"missing field {loc[-1]!r}" if loc else message
        out.append((line_of(raw, [*base, *loc]), f"{where}: {message}" if where else message))
    return out


@dataclass
class Corpus:
    """All case files under ``root`` (the folder of ``rules.yaml``)."""

    root: Path
    case_model: TypeAdapter[Any]
    """What a case is: the union of the kinds' case models (``wireconf.kinds.registry.CASE_ADAPTER``),
    given by the caller so that the corpus layer never imports the kinds that read it."""
    catalogue: Catalogue = field(init=False)
    entries: dict[Path, list[Entry]] = field(init=False, default_factory=dict)
    _parsed: ParsedFiles = field(init=False, repr=False)
    _kept: list[Path] = field(init=False, repr=False, default_factory=list)

    def __post_init__(self) -> None:
        self.root = self.root.resolve()
        seen: dict[str, LoadedCase[CaseBase]] = {}
        paths = sorted(p for p in self.root.rglob("*") if p.is_file() and is_case_file(p, self.root))
        parsed = self._parsed = ParsedFiles(self.root, len(paths))
        self.catalogue = load_catalogue(self.root / RULES_FILE, parsed.load)
        inside = []
        for path in paths:
            target = path.resolve()
            if target.is_relative_to(self.root):
                inside.append(path)
                self.entries[path] = list(self._load_file(path, seen, parsed))
            else:  # under both names: pytest collects a symlinked file by its target
                why = f"a symlink that leads out of the corpus ({self.root}), to {target}: refused"
                self.entries[path] = self.entries[target] = [Problem(path, 0, "[file]", why)]
        self._kept = [self.root / RULES_FILE, *inside]
        parsed.save(self._kept)

    def derived(self, case: LoadedCase[CaseBase], name: str, version: str, compute: Callable[[], T]) -> T:
        """``compute()``, a value worked out from ``case`` alone (its file's parse), kept in the parse
        cache (``ParsedFiles.derived``) for as long as the case's file and ``version`` stay the same:
        ``name`` says which value, and the case within its file. ``save_derived`` writes it."""
        return self._parsed.derived(case.path, f"{name}:{case.id}", version, compute)

    def save_derived(self) -> None:
        """Write the values derived anew since the corpus loaded (a run does, at its end)."""
        self._parsed.save(self._kept)

    def _load_file(
        self, path: Path, seen: dict[str, LoadedCase[CaseBase]], parsed: ParsedFiles
    ) -> Iterator[Entry]:
        try:
            raw = parsed.load(path)
        except YamlSyntaxError as exc:
            yield Problem(path, exc.line, "[file]", exc.described(), unreadable=True)
            return
        if not isinstance(raw, LineDict) or not isinstance(raw.get("cases"), list):
            yield Problem(
                path, getattr(raw, "line", 1) or 1, "[file]", "expected a mapping with a `cases:` list"
            )
            return
        for key in raw:
            if key != "cases" and not (isinstance(key, str) and key.startswith("x-")):
                yield Problem(
                    path,
                    raw.key_lines.get(key, 1),
                    "[file]",
                    f"unknown top-level key {key!r} (only `cases` and `x-*` anchors are allowed)",
                )
        for index, entry in enumerate(raw["cases"]):
            yield self._load_case(path, raw, index, entry, seen)

    def _load_case(
        self, path: Path, raw: LineDict, index: int, entry: YAML, seen: dict[str, LoadedCase[CaseBase]]
    ) -> Entry:
        line = entry.line if isinstance(entry, LineDict) else line_of(raw, ["cases", index])
        name = entry.get("id") if isinstance(entry, dict) and isinstance(entry.get("id"), str) else None
        name = name or f"cases[{index}]"
        if not isinstance(entry, LineDict):
            return Problem(path, line, name, "a case must be a mapping")
        try:
            model = self.case_model.validate_python(entry)
        except ValidationError as exc:
            details = _format_errors(exc, raw, ["cases", index], entry.get("kind"))
            text = "; ".join(f"{msg} (line {ln})" for ln, msg in details)
            return Problem(path, details[0][0] if details else line, name, f"invalid case: {text}")
        unknown = [r for r in model.rules if r not in self.catalogue]
        if unknown and not self.catalogue.unread:  # an unreadable catalogue is its own one problem
            return Problem(
                path,
                entry.key_lines.get("rules", line),
                name,
                f"cites unknown rule(s) {', '.join(unknown)} (not in {self.catalogue.path.name})",
            )
        if model.id in seen:
            first = seen[model.id]
            return Problem(
                path, line, f"{model.id}[duplicate]", f"duplicate case id, first at {first.location}"
            )
        loaded: LoadedCase[CaseBase] = LoadedCase(model, entry, path)
        seen[model.id] = loaded
        return loaded

    def cases(self) -> Iterator[LoadedCase[CaseBase]]:
        for entries in self.entries.values():
            yield from (e for e in entries if isinstance(e, LoadedCase))

    def problems(self) -> Iterator[Problem]:
        for entries in self.entries.values():
            yield from (e for e in entries if isinstance(e, Problem))

    @cached_property
    def cited_rules(self) -> set[str]:
        return {rule for case in self.cases() for rule in case.model.rules}

    def cases_citing(self, rule_id: str) -> list[LoadedCase[CaseBase]]:
        return [c for c in self.cases() if rule_id in c.model.rules]


_LOADED: dict[Path, tuple[tuple[tuple[str, int, int], ...], Corpus]] = {}


def _fingerprint(root: Path) -> tuple[tuple[str, int, int], ...]:
    files = [p for p in root.rglob("*") if p.is_file() and (p.name == RULES_FILE or is_case_file(p, root))]
    return tuple(sorted((str(p), (st := p.stat()).st_mtime_ns, st.st_size) for p in files))


def load_corpus(root: Path, case_model: TypeAdapter[Any]) -> Corpus:
    """The corpus under ``root``, parsed once per process for as long as none of its files changes
    (pytest sessions in one process, such as the mutation runs or pytester's, share it)."""
    root = root.resolve()
    fingerprint = _fingerprint(root)
    cached = _LOADED.get(root)
    if cached is None or cached[0] != fingerprint:
        cached = (fingerprint, Corpus(root, case_model))
        _LOADED[root] = cached
    return cached[1]
