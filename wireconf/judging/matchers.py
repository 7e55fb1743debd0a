"""Declared matchers in expectations: the only places where a case accepts more than one exact value.

- ``{$json: <value>}``: a string whose JSON parse equals ``<value>`` exactly. For values the spec
  defines by meaning, not by spelling: §8.5's ``json_serialize(b.input)`` may be written compactly or
  with spaces, and both are JSON strings of the same arguments.
- ``{$pattern: <regex>}``: a string that the regular expression matches entirely. For values the spec
  only constrains, such as a synthesised tool-call id that must exist and be deterministic.
- ``{$id: <name>}``: an id whose spelling is the runtime's: a non-empty string, the same one wherever
  ``{$id: <name>}`` stands in the expectation, and not the one another name stands for. For ids that
  identify something across a result, such as a block id in a stream's states (the block, the current
  block, the one just completed), which must tell two blocks apart whatever its spelling. Each name
  stands for the first non-empty string found where it stands (in the expectation's order); a name
  whose first string another name already took stands for nothing, so every place it stands fails.

``apply_matchers`` walks expectation and result together and, where a matcher stands, replaces it by
the actual value when it matches, or rewrites both sides so that the diff shows what differs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from wireconf.core import untyped

JSON = "$json"
PATTERN = "$pattern"
ID = "$id"


def is_matcher(value: untyped.JSON) -> bool:
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in (JSON, PATTERN, ID)


def _is_id(value: untyped.JSON) -> bool:
    return isinstance(value, str) and value != ""


def _ids(expected: untyped.JSON, actual: untyped.JSON, found: dict[str, str]) -> dict[str, str]:
    """``{name: id}``: for each ``$id`` name, the first non-empty string standing where it stands."""
    if is_matcher(expected):
        ((kind, name),) = expected.items()
        if kind == ID and _is_id(actual):
            found.setdefault(str(name), actual)
    elif isinstance(expected, dict) and isinstance(actual, dict):
        for key, value in expected.items():
            if key in actual:
                _ids(value, actual[key], found)
    elif isinstance(expected, list) and isinstance(actual, list):
        for e, a in zip(expected, actual, strict=False):
            _ids(e, a, found)
    return found


def _apply_id(name: str, actual: untyped.JSON, ids: dict[str, str]) -> tuple[untyped.JSON, untyped.JSON]:
    bound = ids.get(name)
    owner = next((n for n, value in ids.items() if value == bound), None)  # the first name to take it
    if _is_id(actual) and actual == bound and owner == name:
        return actual, actual
    if not _is_id(actual):
        return f"a non-empty id ({ID} {name})", actual
    if owner != name:
        return f"an id of its own ({ID} {name}), not {ID} {owner}'s", actual
    return f"{bound} (the id {ID} {name} stands for)", actual


def _apply_one(
    expected: dict[str, Any], actual: untyped.JSON, ids: dict[str, str]
) -> tuple[untyped.JSON, untyped.JSON]:
    from wireconf.cassettes.compare import strict_equal

    ((kind, wanted),) = expected.items()
    if kind == ID:
        return _apply_id(str(wanted), actual, ids)
    if kind == PATTERN:
        if isinstance(actual, str) and re.fullmatch(wanted, actual):
            return actual, actual
        return f"a string matching /{wanted}/", actual
    if isinstance(actual, str):
        try:
            parsed = json.loads(actual)
        except ValueError:
            return f"a JSON string of {json.dumps(wanted)}", actual
        inner_expected, inner_actual = apply_matchers(wanted, parsed)
        if strict_equal(inner_expected, inner_actual):
            return actual, actual
        return {JSON: inner_expected}, {JSON: inner_actual}
    return f"a JSON string of {json.dumps(wanted)}", actual


def has_matchers(expected: untyped.JSON) -> bool:
    """Whether a matcher stands anywhere in ``expected``."""
    if isinstance(expected, dict):
        if is_matcher(expected):
            return True
        values: Iterable[untyped.JSON] = expected.values()
    elif isinstance(expected, list):
        values = expected
    else:
        return False
    return any(has_matchers(v) for v in values if isinstance(v, dict | list))  # no call per scalar


def apply_matchers(
    expected: untyped.JSON, actual: untyped.JSON, matchers: bool | None = None
) -> tuple[untyped.JSON, untyped.JSON]:
    """``(expected, actual)`` with every matcher resolved against the value standing where it stands
    (``$id`` names against the whole expectation; a ``$json`` value is an expectation of its own).
    Without a matcher, both as they are (most expectations: one walk of the expectation alone, none
    when the caller says whether it has one: ``matchers``, ``has_matchers(expected)`` worked out)."""
    if not (has_matchers(expected) if matchers is None else matchers):
        return expected, actual
    return _apply(expected, actual, _ids(expected, actual, {}))


def _apply(
    expected: untyped.JSON, actual: untyped.JSON, ids: dict[str, str]
) -> tuple[untyped.JSON, untyped.JSON]:
    if is_matcher(expected):
        return _apply_one(expected, actual, ids)
    if isinstance(expected, dict) and isinstance(actual, dict):
        pairs = {k: _apply(v, actual[k], ids) if k in actual else (v, None) for k, v in expected.items()}
        new_expected = {k: pair[0] for k, pair in pairs.items()}
        new_actual = {k: (pairs[k][1] if k in pairs else v) for k, v in actual.items()}
        return new_expected, new_actual
    if isinstance(expected, list) and isinstance(actual, list):
        pairs_list = [_apply(e, a, ids) for e, a in zip(expected, actual, strict=False)]
        new_expected_list = [p[0] for p in pairs_list] + expected[len(actual) :]
        new_actual_list = [p[1] for p in pairs_list] + actual[len(expected) :]
        return new_expected_list, new_actual_list
    return expected, actual
