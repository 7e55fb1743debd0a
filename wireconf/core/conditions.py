"""Conditions on a case's input, under which a rule governs a difference (``when`` in ``governs``).

Some rules apply only when the case sets something up: ``7.6/max-output-tokens`` is about the
``max_tokens`` a request carries *when the agent sets* ``maxOutputTokens``; without it, the same
``$.max_tokens`` difference breaks the default rule instead. A condition reads the case as written
(anchors and merge keys resolved), from its top-level keys:

- ``agent.model.options.maxOutputTokens``: the path is present with a value other than null;
- ``!agent.model.options.maxOutputTokens``: it is absent or null;
- ``messages[*].content[*].kind=image``: some value at the path equals ``image`` (compared as YAML
  scalars: ``n=2`` matches the integer 2, ``strict=true`` the boolean).

In a path, ``[*]`` is any index of a list, ``*`` any key of a mapping, ``[2]`` one index.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from wireconf.core.errors import WireconfError
from wireconf.core.untyped import JSON

_STEP = re.compile(r"\[(\*|\d+)\]|(?:^|\.)([^.\[\]=!]+)")
_PATH = re.compile(r"^[A-Za-z_][\w-]*(?:\.(?:\*|[\w$-]+)|\[(?:\*|\d+)\])*$")


class ConditionError(WireconfError, ValueError):
    """A ``when:`` condition that cannot be read; a ``ValueError`` too, so that the pydantic validators
    of the rules that call ``parse_condition`` report it with its file and line."""


@dataclass(frozen=True)
class Condition:
    """One condition of a ``when`` list (see the module docstring)."""

    text: str
    steps: tuple[str | int | None, ...]  # a key, an index, or None for a wildcard
    negated: bool = False
    value: JSON = None
    has_value: bool = False

    def __str__(self) -> str:
        return self.text

    def holds(self, case: Mapping[str, Any]) -> bool:
        found = list(_values(case, self.steps))
        if self.has_value:
            return any(_same(v, self.value) for v in found)
        present = any(v is not None for v in found)
        return not present if self.negated else present


@functools.lru_cache(maxsize=4096)
def parse_condition(text: str) -> Condition:
    """The condition ``text`` stands for; ``ValueError`` naming what is wrong with it. Parsed once per
    text (a ``Condition`` is immutable): the catalogue repeats its conditions across rules, and PyYAML
    reading a value costs a tenth of a millisecond."""
    source = text.strip()
    negated = source.startswith("!")
    if negated:
        source = source[1:].strip()
    path, sep, raw_value = source.partition("=")
    path = path.strip()
    if not _PATH.match(path):
        raise ConditionError(
            f"condition {text!r}: {path!r} is not a case path (keys joined by '.', [*] any index, "
            "* any key; e.g. agent.model.options.maxOutputTokens)"
        )
    if sep and negated:
        raise ConditionError(f"condition {text!r}: '!' (absent) and '=' (equals) do not combine")
    steps: list[str | int | None] = []
    for index, key in _STEP.findall(path):
        if index:
            steps.append(None if index == "*" else int(index))
        else:
            steps.append(None if key == "*" else key)
    value = yaml.safe_load(raw_value) if sep else None
    return Condition(text.strip(), tuple(steps), negated, value, bool(sep))


def _values(node: JSON, steps: tuple[str | int | None, ...]) -> Iterator[JSON]:
    if not steps:
        yield node
        return
    step, rest = steps[0], steps[1:]
    if isinstance(step, str):
        if isinstance(node, Mapping) and step in node:
            yield from _values(node[step], rest)
    elif isinstance(step, int):
        if isinstance(node, list) and -len(node) <= step < len(node):
            yield from _values(node[step], rest)
    elif isinstance(node, Mapping):
        for child in node.values():
            yield from _values(child, rest)
    elif isinstance(node, list):
        for child in node:
            yield from _values(child, rest)


def _same(found: JSON, wanted: JSON) -> bool:
    """Equal as YAML values, with ``true`` never equal to ``1``."""
    return (type(found) is type(wanted) and found == wanted) or (
        isinstance(found, int | float)
        and isinstance(wanted, int | float)
        and not isinstance(found, bool)
        and not isinstance(wanted, bool)
        and found == wanted
    )
