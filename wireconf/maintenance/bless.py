"""``wireconf bless``: write what the reference implementation does into cases' expectations.

For the step after recording: a new case (its expectations left out, or stale) is run against the
reference implementation, in replay, through the same kind drivers as a pytest run, and its
``expect`` (or ``expect_error``) and, for e2e, ``expect_request`` are rewritten in place in the case
file, in the corpus's YAML style, with every other byte of the file untouched. The result is for a
person to review against the rules (``git diff``): blessing never makes a case right by itself.
A case whose exchange failed (an unmatched request, a refused recording) is not blessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from wireconf.cassettes.atomic import write_atomic
from wireconf.cassettes.compare import strict_equal
from wireconf.cassettes.store import CassetteStore
from wireconf.core.error_categories import reported
from wireconf.core.errors import BlessError, CaseInputError
from wireconf.core.untyped import JSON, AdapterResult
from wireconf.core.yaml_source import LineDict, load_yaml_file, to_plain
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.loader import Corpus
from wireconf.corpus.model import CaseBase, ExpectedError
from wireconf.corpus.yaml_edit import EditError, edit_case
from wireconf.judging.canonical import NotData, canonical, tool_calls_as_expected
from wireconf.judging.matchers import apply_matchers
from wireconf.judging.outcome import Outcome
from wireconf.judging.verdict import exception_matches
from wireconf.kinds.base import HarnessContext
from wireconf.kinds.registry import CASE_ADAPTER, KINDS, open_corpus
from wireconf.pytest_plugin.impl_loader import load_impl
from wireconf.sdk.replay import SdkReplay

__all__ = ["BlessError", "Blessed", "bless", "expectations", "find_case"]


@dataclass(frozen=True)
class Blessed:
    case_id: str
    path: Path
    keys: tuple[str, ...]


def _unvalidated(corpus: Corpus, case_id: str) -> LoadedCase[CaseBase] | None:
    """A case the corpus could not load because its expectations are missing: loaded with placeholders."""
    for path, entries in corpus.entries.items():
        if not any(getattr(e, "name", None) == case_id for e in entries):
            continue
        raw = load_yaml_file(path)
        for entry in raw.get("cases", []):
            if isinstance(entry, LineDict) and entry.get("id") == case_id:
                filled = LineDict(entry)
                filled.line, filled.key_lines = entry.line, entry.key_lines
                if "expect" not in filled and "expect_error" not in filled:
                    filled["expect"] = None
                kind = KINDS.get(str(filled.get("kind")))
                for key, placeholder in (kind.unblessed if kind is not None else {}).items():
                    filled.setdefault(key, placeholder)
                try:
                    return LoadedCase(CASE_ADAPTER.validate_python(filled), filled, path)
                except ValidationError as exc:
                    raise BlessError(f"{case_id} ({path}:{entry.line}) is not a valid case: {exc}") from exc
    return None


def find_case(corpus: Corpus, case_id: str) -> LoadedCase[CaseBase]:
    for case in corpus.cases():
        if case.id == case_id:
            return case
    found = _unvalidated(corpus, case_id)
    if found is None:
        raise BlessError(f"no case {case_id!r} in {corpus.root}")
    return found


_REGEX_SPECIALS = re.compile(r"([.^$*+?{}\[\]\\|()])")


def _error_expectation(exc: BaseException, yielded: list[AdapterResult]) -> dict[str, Any]:
    """``{category, match}`` for an exception: the one error category it stands for (with its status),
    else its class name as ``type``, and its whole message, with only the regular expression's special
    characters escaped (spaces and quotes stay readable)."""
    message = _REGEX_SPECIALS.sub(r"\\\1", str(exc))
    category = reported(exc)
    expectation: dict[str, Any] = category if category.get("category") else {"type": type(exc).__name__}
    expectation["match"] = f"^{message}$"
    if yielded:
        expectation["yielded"] = yielded
    return expectation


def _unchanged(case: LoadedCase[CaseBase], key: str, value: JSON, outcome: Outcome[Any]) -> bool:
    """Whether the case already expects ``value`` under ``key`` (its matchers and tolerance honoured):
    then its text is left alone, aliases and hand-written matchers included."""
    if case.raw.get(key) is None:
        return False
    current = to_plain(case.raw[key])
    if key == "expect_error":
        return outcome.raised is not None and exception_matches(
            outcome.raised, ExpectedError.model_validate(current)
        )
    expected, actual = apply_matchers(current, tool_calls_as_expected(current, value))
    return strict_equal(expected, actual, case.model.tolerance)


def expectations(case: LoadedCase[CaseBase], outcome: Outcome[Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The keys to set (only those whose value changes) and to remove, for ``case`` given the
    reference's ``outcome``: the kind's own (``Kind.bless``), then ``expect`` or ``expect_error``."""
    values: dict[str, Any] = dict(KINDS[case.kind].bless(case, outcome))
    try:
        if outcome.raised is not None:
            yielded = canonical(outcome.yielded) if case.model.yields_items else []
            values["expect_error"] = _error_expectation(outcome.raised, yielded)
            remove: tuple[str, ...] = ("expect",)
        else:
            values["expect"] = canonical(outcome.value)
            remove = ("expect_error",)
    except NotData as exc:
        raise BlessError(f"{case.id}: the reference returned something that is not data: {exc}") from exc
    changed = {k: v for k, v in values.items() if not _unchanged(case, k, v, outcome)}
    return changed, tuple(key for key in remove if key in case.raw)


def bless(corpus_root: Path, case_ids: list[str], cassettes: Path | None = None) -> list[Blessed]:
    """Run the reference on each case and rewrite its expectations; nothing is written unless every
    case could be blessed."""
    corpus = open_corpus(corpus_root)
    adapter = load_impl("reference").adapter
    ctx = HarnessContext(CassetteStore(cassettes or corpus.root.parent / "cassettes"), SdkReplay())
    texts: dict[Path, str] = {}
    done = []
    for case_id in case_ids:
        case = find_case(corpus, case_id)
        try:
            outcome = KINDS[case.kind].prepare(ctx, case)(adapter)
        except CaseInputError as exc:
            raise BlessError(f"{case_id}: cannot prepare its input: {exc}") from exc
        values, remove = expectations(case, outcome)
        remove = tuple(key for key in remove if key in case.raw)
        if not values and not remove:
            done.append(Blessed(case_id, case.path, ()))
            continue
        text = texts.get(case.path) or case.path.read_text(encoding="utf-8")
        try:
            texts[case.path] = edit_case(text, case_id, values, remove)
        except EditError as exc:
            raise BlessError(f"{case_id} ({case.path}): {exc}") from exc
        done.append(Blessed(case_id, case.path, tuple(values)))
    for path, text in texts.items():
        write_atomic(path, text)
    return done
