"""Declared matchers in expectations: the only places where a case accepts more than one exact value.

- ``{$json: <value>}``: a string whose JSON parse equals ``<value>`` exactly. For values the spec
  defines by meaning, not by spelling: §8.5's ``json_serialize(b.input)`` may be written compactly or
  with spaces, and both are JSON strings of the same arguments.
- ``{$pattern: <regex>}``: a string that the regular expression matches entirely. For values the spec
  only constrains, such as a synthesised tool-call id that must exist and be deterministic.

``apply_matchers`` walks expectation and result together and, where a matcher stands, replaces it by
the actual value when it matches, or rewrites both sides so that the diff shows what differs.
"""

from __future__ import annotations

import json
import re
from typing import Any

JSON = "$json"
PATTERN = "$pattern"


def is_matcher(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) in (JSON, PATTERN)


def _apply_one(expected: dict[str, Any], actual: Any) -> tuple[Any, Any]:
    from harness.judging.compare import strict_equal

    ((kind, wanted),) = expected.items()
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


def apply_matchers(expected: Any, actual: Any) -> tuple[Any, Any]:
    """``(expected, actual)`` with every matcher resolved against the value standing where it stands."""
    if is_matcher(expected):
        return _apply_one(expected, actual)
    if isinstance(expected, dict) and isinstance(actual, dict):
        pairs = {k: apply_matchers(v, actual[k]) if k in actual else (v, None) for k, v in expected.items()}
        new_expected = {k: pair[0] for k, pair in pairs.items()}
        new_actual = {k: (pairs[k][1] if k in pairs else v) for k, v in actual.items()}
        return new_expected, new_actual
    if isinstance(expected, list) and isinstance(actual, list):
        pairs_list = [apply_matchers(e, a) for e, a in zip(expected, actual, strict=False)]
        new_expected_list = [p[0] for p in pairs_list] + expected[len(actual) :]
        new_actual_list = [p[1] for p in pairs_list] + actual[len(expected) :]
        return new_expected_list, new_actual_list
    return expected, actual
