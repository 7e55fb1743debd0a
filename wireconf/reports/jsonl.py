"""One line of a ``--report`` file: the verdict on one case for one runtime, and reading them back.

Every line stands alone (it names its runtime and version), so files from several runs, xdist
workers' controller or CI machines (``--shard``), can be concatenated or merged in any order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from wireconf.core.errors import WireconfError
from wireconf.core.report_text import encodable, report_text
from wireconf.core.untyped import JSON
from wireconf.core.yaml_source import unicode_problem

STATUSES = ("passed", "failed", "error", "unsupported", "skipped")


@dataclass
class CaseRecord:
    impl: str
    version: str
    id: str
    kind: str | None
    api: str | None
    rules: list[str]
    status: str
    duration: float
    baseline: str | None = None  # expected | regression | new | unlisted | fixed, when a baseline was given
    reason: str | None = None  # the baseline's reason, why the gate named it so, or the skip reason
    diff: str | None = None  # the lines that explain a failure
    message: str | None = None  # pytest's full report of a failure or error
    location: str | None = None
    shard: str | None = None
    tier: str | None = None  # a failure's tier: the most authoritative among the rules its diff breaks
    differences: list[dict[str, Any]] | None = None  # each difference with the rules it breaks
    waived: list[dict[str, Any]] | None = None  # the differences the baseline's waivers set aside
    outside_profile: str | None = None  # the --profile under which this failure was tolerated (xfailed)
    failing_profiles: list[str] | None = None  # the profiles under which this failure fails
    corpus: str | None = None  # the corpus's declared version
    corpus_hash: str | None = None  # and the hash of its content (wireconf.corpus.identity)
    python: str | None = None  # the Python that ran the harness, major.minor
    accepted: bool | None = None  # a failure the gate let pass (expected, or new with --allow-new-failures)
    judged_by: dict[str, str] | None = None  # the pinned contract that checked requests, the SDK that parsed
    expected_rejected: list[str] | None = None  # what that contract rejects in the request the case expects
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def runtime(self) -> str:
        return f"{self.impl} {self.version}"

    @property
    def broken(self) -> list[str]:
        """The rules the failure's differences break (``wireconf.judging.attribution``), never those the
        case merely cites: none for an error (no verdict) or a failure whose differences no rule declares
        (unruled); the cited rules only for a failure of a report older than attributions."""
        if self.status != "failed":
            return []
        if self.differences is None:
            return list(self.rules)
        return list(dict.fromkeys(r for d in self.differences for r in d.get("rules", [])))

    @property
    def representation_only(self) -> bool:
        """A failure every difference of which a provider equivalence covers (``--profile interop``
        does not fail on it); never one failed only by a stale waiver (no differences)."""
        found = self.differences or []
        return self.status == "failed" and bool(found) and all(d.get("representation") for d in found)

    def fails_profile(self, profile: str) -> bool:
        """Whether this failure fails under ``profile``, as the run's verdict said
        (``failing_profiles``, ``wireconf.judging.decision.under``); for a report older than that field,
        read from its differences the same way: a difference of no tier (unruled, a request the
        provider's pinned contract rejects) or a stale waiver (a failure without differences) fails every
        profile, representation is set aside under ``interop``, and ``spec`` counts the spec's tier."""
        if self.status != "failed":
            return False
        if self.failing_profiles is not None:
            return profile in self.failing_profiles
        if self.differences is None:  # older than attributions: its tier alone
            return profile != "spec" or self.tier in (None, "", "spec")
        judged = [d for d in self.differences if not (profile == "interop" and d.get("representation"))]
        if not self.differences or any(not d.get("rules") for d in judged):
            return True
        if not judged:
            return False
        return profile != "spec" or self.tier == "spec"

    @property
    def corpus_label(self) -> str | None:
        if self.corpus_hash is None:
            return None
        return f"{self.corpus or 'unversioned'} ({self.corpus_hash})"

    @property
    def gate_accepted(self) -> bool:
        """A failure that did not fail the run (reports from before ``accepted`` existed mark only
        expected failures)."""
        return bool(self.accepted) or self.baseline == "expected"

    def to_json(self) -> str:
        """One line of JSON, whatever strings the runtime put in it: every string bounded and with its
        lone surrogates escaped (``wireconf.core.report_text``); U+2028, U+2029 and U+0085 are kept, since
        a reader splits records on ``\n`` alone."""
        data = {k: v for k, v in asdict(self).items() if v is not None and k != "extra"}
        data.update(self.extra)
        return json.dumps(_encodable(data), ensure_ascii=False, sort_keys=False)


_FIELDS = {f.name for f in fields(CaseRecord)} - {"extra"}


def _is_text(value: JSON) -> bool:
    return isinstance(value, str)


def _is_optional_text(value: JSON) -> bool:
    return value is None or isinstance(value, str)


def _is_list_of(kind: type) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, list) and all(isinstance(item, kind) for item in value)


_SHAPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "impl": (_is_text, "a string"),
    "version": (_is_text, "a string"),
    "id": (_is_text, "a string"),
    "status": (_is_text, "a string"),
    "rules": (_is_list_of(str), "a list of strings"),
    "duration": (lambda v: isinstance(v, int | float) and not isinstance(v, bool), "a number"),
    "accepted": (lambda v: v is None or isinstance(v, bool), "true, false or null"),
    "differences": (lambda v: v is None or _is_list_of(dict)(v), "a list of objects or null"),
    "waived": (lambda v: v is None or _is_list_of(dict)(v), "a list of objects or null"),
    "judged_by": (
        lambda v: v is None or (isinstance(v, dict) and all(isinstance(x, str) for x in v.values())),
        "an object of strings or null",
    ),
    "expected_rejected": (lambda v: v is None or _is_list_of(str)(v), "a list of strings or null"),
    "failing_profiles": (lambda v: v is None or _is_list_of(str)(v), "a list of strings or null"),
}
"""The JSON type of each field a reader relies on; every other known field is a string or null."""


def _encodable(value: JSON) -> JSON:
    if isinstance(value, str):
        return report_text(value)
    if isinstance(value, dict):
        return {encodable(str(k)): _encodable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encodable(v) for v in value]
    return value


def _type_problem(data: dict[str, Any]) -> str | None:
    """The first field whose JSON type is wrong, as ``field must be ..., got ...``."""
    for key in sorted(_FIELDS & data.keys()):
        fits, shape = _SHAPES.get(key, (_is_optional_text, "a string or null"))
        if not fits(data[key]):
            return f"`{key}` must be {shape}, got {json.dumps(data[key])[:80]}"
    return None


class ReportError(WireconfError):
    """A report file cannot be read; the message names the file and line."""

    default_hint = "give the JSON-lines files that pytest --report=FILE wrote"


MAX_DEPTH = 64
"""How deep a record's JSON may nest (one the writer makes nests five levels): deeper input is refused
before anything recursive reads it."""


def _depth(data: JSON) -> int:
    """How deep ``data`` nests (a scalar: 0), read without recursion."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                return depth
            stack.extend((item, depth + 1) for item in (value.values() if isinstance(value, dict) else value))
    return deepest


def parse_record(line: str, where: str) -> CaseRecord:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ReportError(f"{where}: not JSON: {exc}") from exc
    except RecursionError:  # the parser follows nesting on the stack
        raise ReportError(
            f"{where}: nested deeper than a report record can be ({MAX_DEPTH} levels)"
        ) from None
    if _depth(data) > MAX_DEPTH:
        raise ReportError(f"{where}: nested deeper than a report record can be ({MAX_DEPTH} levels)")
    if not isinstance(data, dict):
        raise ReportError(f"{where}: expected a JSON object")
    missing = [k for k in ("impl", "version", "id", "status") if k not in data]
    if missing:
        raise ReportError(f"{where}: missing {', '.join(missing)}")
    wrong = _type_problem(data)
    if wrong:
        raise ReportError(f"{where}: {wrong}")
    data = _encodable(data)  # a file written elsewhere may carry what this one's writer escapes
    if data["status"] not in STATUSES:
        raise ReportError(f"{where}: unknown status {data['status']!r} (known: {', '.join(STATUSES)})")
    known = {k: v for k, v in data.items() if k in _FIELDS}
    known.setdefault("kind", None)
    known.setdefault("api", None)
    known.setdefault("rules", [])
    known.setdefault("duration", 0.0)
    return CaseRecord(**known, extra={k: v for k, v in data.items() if k not in _FIELDS})


def read_records(paths: Iterable[Path]) -> list[CaseRecord]:
    """Every record of every file, merged: one per (runtime, case), the last one read winning.

    A case seen twice for the same runtime under the same Python (a shard run again, a retried job)
    keeps its last verdict.
    """
    merged: dict[tuple[str, str, str | None, str], CaseRecord] = {}
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            at = path.read_bytes()[: exc.start].count(b"\n") + 1
            raise ReportError(f"{path}:{at}: {unicode_problem(exc)}") from None
        except OSError as exc:
            raise ReportError(f"{path}: cannot read: {exc}") from exc
        for number, line in enumerate(text.split("\n"), start=1):  # not splitlines: U+2028 is in a record
            if line.strip():
                record = parse_record(line, f"{path}:{number}")
                merged[(record.impl, record.version, record.python, record.id)] = record
    return list(merged.values())
