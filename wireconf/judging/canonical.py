"""Turn what an adapter returned into plain data the comparer can judge.

Only representation is normalised, never content: tuples become lists, mappings become dicts, a
subclass of ``str``, ``int`` or ``float`` becomes the plain value it holds (a ``str`` subclass is a
string in every kind, as it is once sent as JSON), and an object exposing the spec's ToolCall fields
(§8.7: ``id``, ``name``, ``arguments``) becomes a mapping of exactly those fields, read from
attributes. Anything else that is not data (a model object, a generator, a socket), a value that
contains itself, or one whose reading raises is a ``NotData`` error naming where it was found, in one
line, so that an adapter can never pass by returning something the comparer cannot see.

A tool call returned as a mapping is read from its keys the same way, where the expectation holds a
ToolCall (``tool_calls_as_expected``): a runtime's ``{"id", "name", "arguments", "type"}`` dict is
judged on the spec's fields, like its ToolCall object would be.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from wireconf.core.errors import WireconfError
from wireconf.core.untyped import JSON, AdapterResult

TOOL_CALL_FIELDS = ("id", "name", "arguments")


class NotData(WireconfError):
    """The adapter returned an object that is not data at ``path``."""

    def __init__(self, path: str, value: AdapterResult, why: str | None = None) -> None:
        self.path = path
        self.value = value
        super().__init__(
            why
            or f"the adapter returned {type(value).__module__}.{type(value).__qualname__} "
            f"at {path or 'the top'}, "
            "which is not data: expected str, int, float, bool, None, a list, a mapping with string keys, "
            "or an object with the ToolCall fields id, name, arguments"
        )


def _is_tool_call_object(value: AdapterResult) -> bool:
    return all(hasattr(value, f) for f in ("name", "arguments")) and not isinstance(value, type)


_EXACT: dict[type, Callable[[Any], object]] = {str: str.__str__, int: int.__int__, float: float.__float__}
"""The base type's own conversion (never a subclass's override): a ``str`` subclass (an enum member, a
runtime's own text type) is the string it holds, in every kind, as JSON would carry it."""


def canonical(value: AdapterResult, path: str = "") -> JSON:
    """The plain-data form of ``value``; raises ``NotData`` (one line, whatever went wrong)."""
    try:
        return _canonical(value, path)
    except NotData:
        raise
    except RecursionError:
        raise _too_deep(value, path) from None
    except Exception as exc:  # an adapter's Mapping or property that raises while it is read
        raise NotData(
            path, value, f"reading what the adapter returned raised {type(exc).__name__}: {exc}"
        ) from None


def _too_deep(value: AdapterResult, path: str) -> NotData:
    """A value that contains itself (named where), or one nested deeper than Python can follow."""
    stack: list[tuple[Any, str, frozenset[int]]] = [(value, path, frozenset())]
    while stack:
        item, where, above = stack.pop()
        if id(item) in above:
            return NotData(
                where,
                item,
                f"the adapter returned a value that contains itself at {where or 'the top'} "
                "(a reference cycle): not finite data",
            )
        inside = above | {id(item)}
        if isinstance(item, Mapping):
            stack += [(v, f"{where}.{k}" if where else str(k), inside) for k, v in item.items()]
        elif isinstance(item, list | tuple):
            stack += [(v, f"{where}[{i}]", inside) for i, v in enumerate(item)]
    return NotData(path, value, "the adapter returned data nested deeper than Python can follow: not data")


_PLAIN = frozenset({type(None), bool, int, float, str})
"""Types whose values are their own canonical form (checked before a path is spelled out for them)."""


def _canonical(value: AdapterResult, path: str) -> JSON:
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is not dict and kind is not list:  # a dict or a list is none of _EXACT's types: no test
        for base, exact in _EXACT.items():
            if isinstance(value, base):
                return exact(value)
    if kind is dict or isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotData(f"{path}[{key!r}] (a non-string key)", key)
            out[key] = item if type(item) in _PLAIN else _canonical(item, f"{path}.{key}" if path else key)
        return out
    if kind is list or isinstance(value, list | tuple):
        return [
            item if type(item) in _PLAIN else _canonical(item, f"{path}[{i}]") for i, item in enumerate(value)
        ]
    if _is_tool_call_object(value):
        return {
            f: _canonical(getattr(value, f, None), f"{path}.{f}" if path else f) for f in TOOL_CALL_FIELDS
        }
    raise NotData(path, value)


def _is_expected_tool_call(value: JSON) -> bool:
    return isinstance(value, dict) and set(value) == set(TOOL_CALL_FIELDS)


def tool_calls_as_expected(expected: JSON, actual: JSON) -> JSON:
    """``actual`` with each mapping that stands where ``expected`` has a ToolCall read as a ToolCall."""
    if _is_expected_tool_call(expected) and isinstance(actual, dict) and {"name", "arguments"} <= set(actual):
        return {f: actual.get(f) for f in TOOL_CALL_FIELDS}
    if isinstance(expected, list) and isinstance(actual, list):
        return (
            [
                tool_calls_as_expected(e, a) if isinstance(e, dict | list) else a  # a scalar reads nothing
                for e, a in zip(expected, actual, strict=False)
            ]
            + actual[len(expected) :]
        )
    return actual
