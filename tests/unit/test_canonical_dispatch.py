"""``canonical``'s dispatch on exact ``dict`` and ``list`` (no test against ``_EXACT``'s types for them)
gives what the tests in their order give, on every shape an adapter returns: exact containers, their
subclasses, other mappings and sequences, ``str``/``int``/``float`` subclasses, tool-call objects."""

from __future__ import annotations

import enum
from collections import OrderedDict
from collections.abc import Mapping
from types import MappingProxyType, SimpleNamespace
from typing import Any

import pytest

from wireconf.judging import canonical as module
from wireconf.judging.canonical import NotData, canonical


def _in_order(value: Any, path: str = "") -> Any:
    """``_canonical`` as it tested a value before: plain types, ``_EXACT``, mapping, list or tuple,
    tool call."""
    if type(value) in module._PLAIN:
        return value
    for base, exact in module._EXACT.items():
        if isinstance(value, base):
            return exact(value)
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotData(f"{path}[{key!r}] (a non-string key)", key)
            out[key] = _in_order(item, f"{path}.{key}" if path else key)
        return out
    if isinstance(value, list | tuple):
        return [_in_order(item, f"{path}[{i}]") for i, item in enumerate(value)]
    if module._is_tool_call_object(value):
        return {
            f: _in_order(getattr(value, f, None), f"{path}.{f}" if path else f)
            for f in module.TOOL_CALL_FIELDS
        }
    raise NotData(path, value)


class Color(enum.StrEnum):
    RED = "red"


class Count(int):
    pass


class Listy(list[Any]):
    pass


class Dicty(dict[str, Any]):
    pass


VALUES = [
    {"a": [1, 2.5, None, True, "x"], "b": {"c": {}}},
    [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
    {"color": Color.RED, "n": Count(3), "f": [Color.RED]},
    Listy([1, Dicty(a=Listy([2]))]),
    OrderedDict(a=(1, 2), b=MappingProxyType({"c": 3})),
    (1, [2, (3,)]),
    {"call": SimpleNamespace(name="f", arguments='{"x": 1}', id="c1")},
    [SimpleNamespace(name="f", arguments={"x": Count(1)})],
]


@pytest.mark.parametrize("value", VALUES)
def test_same_as_in_order(value: Any) -> None:
    got, expected = canonical(value), _in_order(value)
    assert got == expected
    assert repr(got) == repr(expected)  # the same types all the way down (an enum member is its text)


@pytest.mark.parametrize("value", [{1: "a"}, [{"a": object()}], {"a": [{2: 3}]}])
def test_not_data_named_alike(value: Any) -> None:
    with pytest.raises(NotData) as got:
        canonical(value)
    with pytest.raises(NotData) as expected:
        _in_order(value)
    assert str(got.value) == str(expected.value)
