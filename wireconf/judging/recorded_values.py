"""``{$recorded: <JSON pointer>}`` in an expectation: a value of the case's own recorded response.

Some expected values are the provider's data, passed through unchanged by the rule under test: §8.2
returns ``data[0].embedding``, 1536 floats. Copying them into the case would duplicate the cassette;
``expect: {$recorded: /data/0/embedding}`` says the same thing and stays exact. The pointer (RFC 6901)
is resolved against the JSON body of the response the case names (cassette or inline ``body``), read
from the recorded bytes and never from any implementation, before the verdict; the comparison is then
the usual exact one. Which response that is, is the case's kind's business (``Kind.recorded_document``:
a case over a whole cassette points into its first interaction). Only non-streaming responses have a
JSON body to point into.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from wireconf.cassettes.store import RecordedResponse
from wireconf.core.errors import CaseInputError
from wireconf.core.untyped import JSON
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import CaseBase
from wireconf.judging import matchers

RECORDED = "$recorded"
_MATCHERS = (matchers.JSON, matchers.PATTERN, matchers.ID)
"""What ``matchers.is_matcher`` looks for, as it looks (a one-key mapping with one of these keys)."""


def is_reference(value: JSON) -> bool:
    return isinstance(value, dict) and len(value) == 1 and next(iter(value)) == RECORDED


def has_references(value: JSON) -> bool:
    if is_reference(value):
        return True
    if isinstance(value, dict):
        return any(has_references(v) for v in value.values() if isinstance(v, dict | list))
    if isinstance(value, list):
        return any(has_references(v) for v in value if isinstance(v, dict | list))
    return False


def _plain(data: JSON, found: list[bool]) -> JSON:
    """``to_plain(data)``, setting ``found[0]`` where a ``$recorded`` reference stands (``is_reference``)
    and ``found[1]`` where a matcher does (``matchers.is_matcher``): the three walks in one."""
    if isinstance(data, dict):
        if len(data) == 1:
            key = next(iter(data))
            if key == RECORDED:
                found[0] = True
            elif key in _MATCHERS:
                found[1] = True
        return {k: _plain(v, found) if isinstance(v, dict | list) else v for k, v in data.items()}
    if isinstance(data, list):
        return [_plain(v, found) if isinstance(v, dict | list) else v for v in data]
    return data


_LAST: list[tuple[JSON, JSON, bool, bool]] = []
"""The last expectation walked (``plain_expectation``): the case running now's, asked for by its
preparation (``with_recorded_values``) and again by its judging, once per method judged."""


def plain_expectation(expect: JSON) -> tuple[JSON, bool, bool]:
    """``(to_plain(expect), has_references(expect), has_matchers(to_plain(expect)))``, in one walk, kept
    for the last expectation asked (by the object: a case's model is never changed, its judging only
    reads the plain copy), so that a case's preparation and each method its judging reads it for share
    one walk. Callers never change the plain copy."""
    if _LAST and _LAST[0][0] is expect:
        _, plain, references, matchers = _LAST[0]
        return plain, references, matchers
    found = [False, False]
    plain = _plain(expect, found)
    _LAST[:] = [(expect, plain, found[0], found[1])]
    return plain, found[0], found[1]


class NoRecordedValue(CaseInputError, KeyError):
    """A ``$recorded`` pointer that names nothing in the recorded response (or is no pointer); a
    ``KeyError`` too, as a lookup that found nothing."""


def pointer_get(document: JSON, pointer: JSON) -> JSON:
    """The value at an RFC 6901 JSON pointer; ``NoRecordedValue`` (a ``KeyError``) naming the first step
    that does not exist."""
    if not isinstance(pointer, str) or (pointer and not pointer.startswith("/")):
        raise NoRecordedValue(f"{pointer!r} is not a JSON pointer (e.g. /data/0/embedding)")
    value = document
    walked = ""
    for token in pointer.split("/")[1:] if pointer else []:
        step = token.replace("~1", "/").replace("~0", "~")
        walked += "/" + token
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and step.isdigit() and int(step) < len(value):
            value = value[int(step)]
        else:
            raise NoRecordedValue(f"{pointer}: the recorded response has nothing at {walked}")
    return value


def resolve(value: JSON, document: JSON) -> JSON:
    """``value`` with every ``{$recorded: pointer}`` replaced by what the pointer names in ``document``."""
    if is_reference(value):
        return pointer_get(document, value[RECORDED])
    if isinstance(value, dict):
        return {k: resolve(v, document) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, document) for v in value]
    return value


def with_recorded_values(
    case: LoadedCase[CaseBase], document_of: Callable[[str], RecordedResponse]
) -> CaseBase:
    """The case's model, its ``expect`` resolved when it refers to the recorded response;
    ``document_of(where)`` is the recorded response the case's kind points into (its
    ``recorded_document``), asked for only when there is a reference."""
    expect, references, _ = plain_expectation(case.model.expect)
    if not references:
        return case.model
    where = f"`{RECORDED}` in the expectation (line {case.line_of('expect')})"
    recorded = document_of(where)
    try:
        document = json.loads(recorded.body)
    except ValueError as exc:
        raise CaseInputError(f"{where}: the recorded response body is not JSON ({exc})") from exc
    try:
        resolved = resolve(expect, document)
    except KeyError as exc:
        raise CaseInputError(f"{where}: {exc.args[0]}") from exc
    return case.model.model_copy(update={"expect": resolved})
