"""``expect_keys: listed``: the result compared on the keys its expectation lists, as Prompty's upstream
vector runners compare (they project the observed value onto the vector's expected shape).

Only mappings are cut down: at every depth a mapping keeps the keys the expectation has, so a key it
lists that the result lacks is still a missing key. Lists keep their items in order; a list of another
length is kept whole, so that an item too many or too few still shows. Everything else is compared as
it is, exactly.
"""

from __future__ import annotations

from wireconf.core.untyped import JSON
from wireconf.judging.matchers import is_matcher


def listed_only(expected: JSON, actual: JSON) -> JSON:
    """``actual`` cut down to the keys ``expected`` lists, at every depth."""
    if is_matcher(expected):
        return actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        return {key: listed_only(expected[key], actual[key]) for key in expected if key in actual}
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [listed_only(e, a) for e, a in zip(expected, actual, strict=True)]
    return actual
