"""Provider equivalences: differences the provider itself treats as the same request.

A runtime's request may differ from the spec's expectation in ways the provider cannot tell apart: a
default sent or omitted (``"stream": false``, ``"n": 1``), an empty optional object (Gemini's
``generationConfig: {}``), a string content where the API documents it as shorthand for one text
block, tool-call arguments that are the same JSON written with other whitespace. Under ``--profile
interop`` such a difference is *representation*: shown and counted, never failing
(``wireconf.judging.decision``). Under ``spec`` and ``full`` it fails as before: the spec says what to
send, and it is still a deviation from its text.

Each api lists its equivalences in its provider's module (``Api.equivalences``), as data matched
against a ``Difference`` (subject, generic path, change, and the values on both sides), each with the
source that says the provider treats both forms alike: the provider's API reference or the SDK type and
field that states it. Nothing is equivalent without a source (``tests/unit/test_equivalences.py`` fails on
one without), and a difference that no equivalence lists is never equivalent.

The tests an equivalence can make of a difference's values (``Test``):

- ``default``: a key sent with the provider's default (``value``) where the other side omits it, either
  way (an ``unexpected-key`` whose runtime value is the default, or a ``missing-key`` whose expected
  value is);
- ``empty``: a key whose value is an empty object or array where the other side omits it;
- ``null``: a key sent as ``null`` where the other side omits it (an optional field its contract lets
  be ``null``, which stands for unset);
- ``same-json``: two strings that parse to the same JSON value (tool-call arguments);
- ``one-text-block``: a string on one side, on the other an array of exactly one ``{"type": <value, by
  default "text">, "text": <the same string>}`` block;
- ``one-user-message``: a string on one side, on the other an array of exactly one message of role
  ``user`` (``type: "message"`` or none) whose content is that string, or one text block of it (its
  type ``value``): a whole input the API documents as shorthand for one user message;
- ``spelling``: a key missing on one side and present on the other under its other JSON spelling
  (``stopSequences`` / ``stop_sequences``), with values alike but for the same spellings: a pair of
  differences, found together (``representations``), at any path (``path: "*"``).

Where an api's provider publishes its defaults in a machine-readable contract, its ``default`` and
``null`` equivalences are derived from it (``wireconf.providers.contract.derived_equivalences``), never
listed by hand: every field the contract gives a default, at every api alike. The others are listed in
the provider's module with the words of the source that states them. ``concept`` names the class an
equivalence belongs to (``stream-default``, ``tool-choice-default-with-tools``, …), shared across apis:
``tests/unit/test_equivalences.py`` requires each class listed for one api to be listed for every api
whose provider documents the same thing, or a reason on the api's record why it does not
(``Api.equivalence_gaps``).

An object sent where the other side omits the key (``generationConfig: {"candidateCount": 1}``) is
representation when every key of it is: each ``(key, value)`` is matched as an omitted key one level
down.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from wireconf.core.conditions import Condition, parse_condition
from wireconf.core.differences import Difference, generic_path
from wireconf.core.errors import WireconfError
from wireconf.core.untyped import JSON


class ProviderError(WireconfError, ValueError):
    """A provider record that cannot be used (an equivalence with an unknown test or a bad condition, a
    SDK whose HTTP library cannot be told): raised when its module is imported, naming the record."""


Test = Literal["default", "empty", "null", "same-json", "one-text-block", "one-user-message", "spelling"]
TESTS: tuple[str, ...] = get_args(Test)

_OMITTED = ("unexpected-key", "missing-key")
_CHANGES: dict[str, tuple[str, ...]] = {
    "default": _OMITTED,
    "empty": _OMITTED,
    "null": _OMITTED,
    "same-json": ("value",),
    "one-text-block": ("type",),
    "one-user-message": ("type",),
    "spelling": _OMITTED,
}
ANY_PATH = "*"
"""The changes each test can match: a default or an empty value is a key one side omits."""


@dataclass(frozen=True)
class Equivalence:
    """One way the provider treats two requests as the same (see the module docstring)."""

    name: str
    """Short and stable: shown beside the difference it covers (``stream-default``)."""
    path: str
    """The difference's path with array indices written ``[*]`` (``$.messages[*].content``)."""
    test: Test
    source: str
    """Where the provider says so: its API reference's URL, or the SDK type and field that states it."""
    quote: str
    """The words of the source that state it (the SDK docstring, the reference's line)."""
    value: JSON = None
    """``default``: the provider's default value; ``one-text-block``: the block's type (``"text"`` when
    ``None``)."""
    when: tuple[str, ...] = ()
    """Conditions on the case as written (``wireconf.core.conditions``) under which it holds, e.g.
    ``tool_choice: "auto"`` is the default only when the agent has tools."""
    subject: str = "request"
    concept: str = ""
    """The class it belongs to across apis (its ``name`` when empty): ``stream-default`` on Chat
    Completions and on the Messages API is one class."""

    @property
    def kind(self) -> str:
        return self.concept or self.name

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise ProviderError(
                f"equivalence {self.name}: unknown test {self.test!r} (known: {', '.join(TESTS)})"
            )
        for text in self.when:
            parse_condition(text)  # a bad condition fails at import, naming itself

    @property
    def conditions(self) -> tuple[Condition, ...]:
        return tuple(parse_condition(text) for text in self.when)

    def covers(self, difference: Difference, case: Mapping[str, Any] | None) -> bool:
        """Whether ``difference`` (found in a case written as ``case``) is this equivalence."""
        if difference.subject != self.subject or difference.change not in _CHANGES[self.test]:
            return False
        if self.test == "spelling":
            return False  # a pair of differences: ``representations``
        if self.path != ANY_PATH and generic_path(difference.path) != self.path:
            return False
        if self.when and (case is None or not all(c.holds(case) for c in self.conditions)):
            return False
        return _holds(self.test, self.value, difference)


def _present(difference: Difference) -> JSON:
    """The value of the side that has the key, for a key one side omits."""
    return difference.actual if difference.change == "unexpected-key" else difference.expected


def _holds(test: Test, value: JSON, difference: Difference) -> bool:
    if test == "default":
        present = _present(difference)
        if _number(present) and _number(value):
            return bool(present == value)  # JSON has one number type: 1 and 1.0 are one value
        return type(present) is type(value) and present == value
    if test == "empty":
        present = _present(difference)
        return isinstance(present, dict | list) and not present
    if test == "null":
        return _present(difference) is None
    if test == "same-json":
        return _same_json(difference.expected, difference.actual)
    block = value if isinstance(value, str) else "text"
    one = _one_user_message if test == "one-user-message" else _one_text_block
    return one(difference.expected, difference.actual, block) or one(
        difference.actual, difference.expected, block
    )


def _number(value: JSON) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same_json(expected: JSON, actual: JSON) -> bool:
    if not isinstance(expected, str) or not isinstance(actual, str):
        return False
    try:
        return bool(json.loads(expected) == json.loads(actual))
    except ValueError:
        return False


def _one_text_block(text: JSON, blocks: JSON, block: str) -> bool:
    return (
        isinstance(text, str)
        and isinstance(blocks, list)
        and len(blocks) == 1
        and blocks[0] == {"type": block, "text": text}
    )


def _one_user_message(text: JSON, items: JSON, block: str) -> bool:
    if not isinstance(text, str) or not isinstance(items, list) or len(items) != 1:
        return False
    item = items[0]
    if not isinstance(item, dict) or item.get("role") != "user" or item.get("type", "message") != "message":
        return False
    content = item.get("content")
    return set(item) <= {"role", "content", "type"} and (
        content == text or _one_text_block(text, content, block)
    )


def covering(
    difference: Difference, equivalences: Iterable[Equivalence], case: Mapping[str, Any] | None
) -> Equivalence | None:
    """The equivalence that makes ``difference`` representation, or ``None``. An object sent or omitted
    whole is representation when each of its keys is (``generationConfig: {"candidateCount": 1}``)."""
    equivalences = tuple(equivalences)
    for equivalence in equivalences:
        if equivalence.covers(difference, case):
            return equivalence
    present = _present(difference) if difference.change in _OMITTED else None
    if isinstance(present, dict) and present:
        inner = [_key_difference(difference, key, value) for key, value in present.items()]
        found = [covering(d, equivalences, case) for d in inner]
        if all(found):
            return found[0]
    return None


def representations(
    differences: list[Difference], equivalences: Iterable[Equivalence], case: Mapping[str, Any] | None
) -> list[Equivalence | None]:
    """The equivalence that makes each of ``differences`` representation (``covering``), and the pairs
    that are one key under its two spellings (a ``spelling`` equivalence), found together."""
    equivalences = tuple(equivalences)
    found = [covering(d, equivalences, case) for d in differences]
    spelling = next((e for e in equivalences if e.test == "spelling"), None)
    if spelling is None:
        return found
    unexpected = {
        (d.subject, d.variant, _parent(d.path), _leaf_name(d.path)): i
        for i, d in enumerate(differences)
        if d.change == "unexpected-key" and found[i] is None
    }
    for i, missing in enumerate(differences):
        if missing.change != "missing-key" or found[i] is not None:
            continue
        parent, name = _parent(missing.path), _leaf_name(missing.path)
        for key in _other_spellings(name):
            j = unexpected.get((missing.subject, missing.variant, parent, key))
            if j is not None and _spelled_alike(missing.expected, differences[j].actual):
                found[i] = found[j] = spelling
    return found


def _parent(path: str) -> str:
    return path[: max(path.rfind("."), path.rfind("["))] if path != "$" else path


def _leaf_name(path: str) -> str:
    tail = path[max(path.rfind("."), path.rfind("[")) :]
    return tail[1:] if tail.startswith(".") else tail.strip("[]'\"")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _other_spellings(name: str) -> list[str]:
    """The keys that could be ``name`` written the other way: lowerCamelCase ↔ snake_case."""
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in name)
    return [s for s in dict.fromkeys((_camel(name), snake)) if s != name]


def _spelled_alike(a: JSON, b: JSON) -> bool:
    """Whether two values are the same but for the spelling of their keys."""
    if isinstance(a, dict) and isinstance(b, dict):
        left = {_camel(k): v for k, v in a.items()}
        right = {_camel(k): v for k, v in b.items()}
        return left.keys() == right.keys() and all(_spelled_alike(left[k], right[k]) for k in left)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_spelled_alike(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def _key_difference(outer: Difference, key: str, value: JSON) -> Difference:
    """The difference one key of an omitted object would be, were its parent on both sides."""
    path = f"{outer.path}.{key}" if key.isidentifier() else f"{outer.path}[{key!r}]"
    sides = {"actual": value} if outer.change == "unexpected-key" else {"expected": value}
    return Difference(outer.subject, path, outer.change, f"{path}: {outer.change}", **sides)
