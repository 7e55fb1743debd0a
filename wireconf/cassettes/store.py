"""Reading cassettes for cases: ``cassette: openai/chat-x`` → ``<cassettes>/openai/chat-x.yaml``.

Each cassette is parsed once per session and kept; a case asks for one interaction's response. A
missing file, broken YAML, bad metadata or an interaction index out of range is a ``CassetteError``
naming the file (and line where there is one).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from wireconf.cassettes.format import decode_body
from wireconf.cassettes.sse_form import CassetteFormatError
from wireconf.core.errors import WireconfError
from wireconf.core.untyped import YAML
from wireconf.core.yaml_source import YamlSyntaxError, line_of, load_yaml_file
from wireconf.providers.registry import API_NAMES

CASSETTE_SUFFIX = ".yaml"


class ImportSource(BaseModel):
    """Where an imported recording was published: the repository, the file in it and the commit (when
    known), the interaction taken from it (absent when the whole cassette was imported), the file that
    was read, and its ``format`` (``real-traffic``, ``vcrpy``, ``ruby-vcr``)."""

    model_config = ConfigDict(extra="forbid")

    repo: str
    path: str
    commit: str | None = None
    interaction: int | None = None
    file: str | None = None
    format: str | None = None


class CassetteMeta(BaseModel):
    """The ``wireconf:`` block: what the cassette holds and where its bytes came from.

    ``sdk`` names the versions of the SDK (and HTTP library) that sent the recorded requests; a cassette
    recorded by wireconf also names the ``case`` and the implementation (``impl``) that recorded it.
    """

    model_config = ConfigDict(extra="forbid")

    format: int = 1
    provenance: Literal["recorded", "imported", "synthetic"]
    source: ImportSource | None = None
    notes: str | None = None
    provider: str
    # the names are known only at run time (the provider registry): pydantic checks them, mypy cannot
    api: Literal[API_NAMES]  # type: ignore[valid-type]
    stream: bool = False
    endpoint: str
    date: date
    sdk: dict[str, str] = {}
    wireconf: str
    case: str | None = None
    impl: str | None = None

    @model_validator(mode="after")
    def _imported_names_source(self) -> CassetteMeta:
        if self.provenance == "imported" and self.source is None:
            raise ValueError("an imported cassette names its source")
        return self


class CassetteError(WireconfError):
    """A cassette that cannot be used; ``where`` names the file (and line)."""


FORMAT_HINT = "a cassette is vcrpy's YAML, with wireconf's optional metadata (docs/recording.md)"


@dataclass(frozen=True)
class RecordedResponse:
    status: int
    headers: dict[str, list[str]]
    body: bytes

    def header(self, name: str) -> str | None:
        for key, values in self.headers.items():
            if key.lower() == name.lower():
                return values[0] if values else None
        return None

    @cached_property
    def headers_key(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The headers as a hashable key, sorted (what the SDK's object depends on besides the body)."""
        return tuple(sorted((name, tuple(values)) for name, values in self.headers.items()))

    @property
    def is_event_stream(self) -> bool:
        """By content type; a recording without one is a stream when its body is SSE-framed."""
        content_type = self.header("content-type")
        if content_type is not None:
            return content_type.startswith("text/event-stream")
        return _looks_like_sse(self.body)

    @cached_property
    def problem(self) -> str | None:
        """Why this response cannot stand for what a provider sent (``None`` when it can): a content type
        that disagrees with the body, a JSON body that does not parse, an event stream with an event
        that is cut short or whose data is not JSON. Checked once, when a case first uses it."""
        content_type = self.header("content-type")
        kind = (content_type or "").split(";")[0].strip().lower()
        body = self.body
        if kind == "text/event-stream":
            if body.strip() and not _looks_like_sse(body):
                what = "JSON" if body.lstrip()[:1] in (b"{", b"[") else "not an event stream"
                return f"is labelled {kind}, but its body is {what}"
            return _stream_problem(body)
        if kind == "application/json" or kind.endswith("+json"):
            if _looks_like_sse(body):
                return f"is labelled {kind}, but its body is an event stream"
            if body.strip():
                try:
                    json.loads(body)
                except ValueError as exc:
                    return f"is labelled {kind}, but its body is not valid JSON ({exc})"
                except RecursionError:
                    return f"is labelled {kind}, but its body is {TOO_DEEP}"
            return None
        if content_type is None and _looks_like_sse(body):
            return _stream_problem(body)
        return None


TOO_DEEP = "JSON nested too deeply to parse (deeper than Python's recursion limit)"
"""What a body whose JSON the parser cannot follow is: no SDK could parse it either, so it is a broken
cassette (an error of its own cases), never a crash of the run."""


def _looks_like_sse(body: bytes) -> bool:
    return body.lstrip().startswith((b"data:", b"event:", b":", b"id:"))


_EVENT_END = re.compile(r"\r?\n\r?\n")


def _stream_problem(body: bytes) -> str | None:
    """The first event of a provider's event stream whose data is not JSON (providers send JSON data
    and ``[DONE]``), which is how a stream cut in the middle of an event shows."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"is an event stream that is not UTF-8 ({exc.reason} at byte {exc.start})"
    events = [e for e in _EVENT_END.split(text) if e.strip()]
    for number, event in enumerate(events, 1):
        lines = re.split(r"\r?\n", event)
        data = "\n".join(line[5:].removeprefix(" ") for line in lines if line.startswith("data:"))
        if not data or data.strip() == "[DONE]":
            continue
        try:
            json.loads(data)
        except ValueError as exc:
            return (
                f"is an event stream whose event {number} of {len(events)} is cut short or not JSON ({exc})"
            )
        except RecursionError:
            return f"is an event stream whose event {number} of {len(events)} is {TOO_DEEP}"
    return None


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    uri: str
    headers: dict[str, list[str]]
    body: bytes | None


@dataclass(frozen=True)
class Interaction:
    request: RecordedRequest
    response: RecordedResponse
    line: int = 0


@dataclass(frozen=True)
class Cassette:
    name: str
    path: Path
    meta: CassetteMeta | None
    interactions: tuple[Interaction, ...]

    def where(self, index: int) -> str:
        """``interaction N of cassette NAME (path:line)``, for messages that blame the cassette."""
        line = self.interactions[index].line if 0 <= index < len(self.interactions) else 0
        return f"interaction {index} of cassette {self.name} ({self.path}:{line})"

    def problem(self) -> str | None:
        """The first response of the cassette that cannot stand for a provider's answer, named."""
        for index, interaction in enumerate(self.interactions):
            problem = interaction.response.problem
            if problem is not None:
                return f"the response of {self.where(index)} {problem}"
        return None


def _headers(raw: YAML) -> dict[str, list[str]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise CassetteFormatError("headers must be a mapping")
    return {str(k): [str(x) for x in v] if isinstance(v, list) else [str(v)] for k, v in raw.items()}


def _interaction(raw: YAML, line: int = 0) -> Interaction:
    request, response = raw["request"], raw["response"]
    status = response.get("status") or {}
    return Interaction(
        RecordedRequest(
            method=str(request["method"]),
            uri=str(request["uri"]),
            headers=_headers(request.get("headers")),
            body=decode_body(request.get("body")),
        ),
        RecordedResponse(
            status=int(status.get("code", 200)) if isinstance(status, dict) else int(status),
            headers=_headers(response.get("headers")),
            body=decode_body(response.get("body")) or b"",
        ),
        line,
    )


def read_cassette(path: Path, name: str | None = None) -> Cassette:
    """Parse one cassette file; raises ``CassetteError`` naming the file and line."""
    if not path.is_file():
        raise CassetteError(f"cassette {name or path} not found: {path} does not exist")
    try:
        raw = load_yaml_file(path)
    except YamlSyntaxError as exc:
        raise CassetteError(exc.described(), path=path, line=exc.line, hint=FORMAT_HINT) from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("interactions"), list):
        raise CassetteError(
            "a cassette is a mapping with an `interactions:` list", path=path, line=1, hint=FORMAT_HINT
        )
    meta = None
    if raw.get("wireconf") is not None:
        try:
            meta = CassetteMeta.model_validate(raw["wireconf"])
        except ValidationError as exc:
            raise CassetteError(
                f"bad `wireconf:` metadata: {exc}",
                path=path,
                line=line_of(raw, ["wireconf"]),
                hint="fix the field the message names, or remove `wireconf:` (it is optional)",
            ) from exc
    interactions = []
    for index, item in enumerate(raw["interactions"]):
        line = line_of(raw, ["interactions", index])
        try:
            interactions.append(_interaction(item, line))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise CassetteError(
                f"interaction {index} is malformed: {exc!r}", path=path, line=line, hint=FORMAT_HINT
            ) from exc
    return Cassette(name or path.stem, path, meta, tuple(interactions))


_PARSED: dict[Path, tuple[tuple[int, int], Cassette]] = {}


def _read_unchanged(path: Path, name: str) -> Cassette:
    """``read_cassette``, parsed once per process while the file is unchanged (pytest sessions in one
    process, such as the mutation runs, share the parse; a re-recorded file is read again)."""
    try:
        stat = path.stat()
    except OSError:
        return read_cassette(path, name)
    key = (stat.st_mtime_ns, stat.st_size)
    cached = _PARSED.get(path)
    if cached is None or cached[0] != key or cached[1].name != name:
        cached = (key, read_cassette(path, name))
        _PARSED[path] = cached
    return cached[1]


class CassetteStore:
    """The cassettes under one folder, each parsed at most once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache: dict[str, Cassette | CassetteError] = {}

    def path_of(self, name: str) -> Path:
        """The file of cassette ``name``; a name that is not a path under the folder, or whose file or
        folder is a symlink that leads out of it, is refused (read from or recorded into, it would
        be a file the corpus does not hold)."""
        if not re.fullmatch(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*", name) or ".." in name.split("/"):
            raise CassetteError(f"cassette name {name!r} is not a relative path under {self.root}")
        path = self.root / f"{name}{CASSETTE_SUFFIX}"
        resolved = path.resolve()
        if not resolved.is_relative_to(self._resolved_root):
            raise CassetteError(
                f"cassette {name}: {path} is a symlink (or under one) that leads out of the cassettes "
                f"folder {self.root}, to {resolved}: refused",
                hint="keep cassettes inside the cassettes folder (copy the file instead of linking it)",
            )
        return path

    @cached_property
    def _resolved_root(self) -> Path:
        return self.root.resolve()

    def load(self, name: str) -> Cassette:
        cached = self._cache.get(name)
        if cached is None:
            try:
                cached = _read_unchanged(self.path_of(name), name)
            except CassetteError as exc:
                cached = exc
            self._cache[name] = cached
        if isinstance(cached, CassetteError):
            raise cached
        return cached

    def forget(self, name: str) -> None:
        """Drop a cached cassette (it was just written) so that the next load reads the new file."""
        self._cache.pop(name, None)

    def interaction(self, name: str, index: int) -> Interaction:
        cassette = self.load(name)
        if not 0 <= index < len(cassette.interactions):
            raise CassetteError(
                f"cassette {name} ({cassette.path}) has {len(cassette.interactions)} interaction(s); "
                f"there is no interaction {index}"
            )
        return cassette.interactions[index]
