"""Would the provider accept this request? A request body checked against the official SDK's type.

The question a provider asks first. Each api's record names its SDK request type (``Api.request_type``:
``openai``'s ``CompletionCreateParams`` …, ``anthropic``'s ``MessageCreateParams``, the ``google-genai``
models of the REST body's parts); ``problems`` validates a body with pydantic and returns what the type
rejects, each with its path and the SDK field. Two things pydantic does not do by itself are done here:

- an ``Iterable[...]`` field is validated lazily (pydantic hands back an iterator), so the validated
  value is walked to the end, and an error found there is placed under the field's path;
- a TypedDict drops keys it does not know without a word, so the input is compared with the validated
  value: a key that vanished is one the type does not have (the providers reject unknown parameters).

A ``TypeAdapter`` of a large SDK type takes seconds to build (Chat Completions' about 2 s here, more on a
loaded machine), so each is built once per process and kept, and only the first time a request differs
from its expectation: a request that equals its expectation is never checked (``rejections``: what the
expectation already does is the spec's doing, not the runtime's), so a passing run never builds one.
Judging runs after the runtime's part, outside ``--case-timeout`` (``wireconf.pytest_plugin.case_run``):
the runtime never pays for the build.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from wireconf.compare import format_path
from wireconf.differences import Difference
from wireconf.untyped import JSON

RequestType = str | Mapping[str, str]
"""A dotted SDK type for the whole body, or (a REST body made of parts, Gemini's) each top-level key's
type; ``list[...]`` around a dotted name for a repeated part."""


@dataclass(frozen=True)
class Problem:
    """One thing the SDK type rejects: where (``$.messages[0].content[0].file.url``), what, and the type
    that said so."""

    path: str
    message: str
    sdk_type: str

    @property
    def text(self) -> str:
        return f"{self.path}: the provider's SDK type {self.sdk_type} rejects this: {self.message}"

    def difference(self) -> Difference:
        return Difference("request", self.path, "provider-rejects", self.text, self.sdk_type)


@functools.cache
def _adapter(dotted: str) -> Any:
    """The pydantic ``TypeAdapter`` of ``dotted`` (``list[pkg.mod.Type]`` for a list), built once."""
    from pydantic import TypeAdapter

    inner = dotted.removeprefix("list[").removesuffix("]")
    module, _, name = inner.rpartition(".")
    target: Any = getattr(importlib.import_module(module), name)
    return TypeAdapter(list[target] if inner != dotted else target)


def _walk(value: JSON, path: tuple[Any, ...], found: list[dict[str, Any]]) -> JSON:
    """``value`` with every lazily validated iterable consumed (its errors recorded, located from the
    body's root)."""
    from pydantic import BaseModel, ValidationError

    if isinstance(value, str | bytes | int | float | bool | BaseModel) or value is None:
        return value
    if isinstance(value, Mapping):
        return {k: _walk(v, (*path, k), found) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_walk(v, (*path, i), found) for i, v in enumerate(value)]
    items: list[JSON] = []
    try:
        for i, item in enumerate(iter(value)):
            items.append(_walk(item, (*path, i), found))
    except ValidationError as exc:  # its locations start at the item's index
        found += [{**e, "loc": (*path, *e["loc"])} for e in exc.errors()]
    except TypeError:
        return value
    return items


def _unknown(sent: JSON, kept: JSON, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    """The paths of keys ``sent`` has and the validated ``kept`` lost."""
    if isinstance(sent, Mapping) and isinstance(kept, Mapping):
        for key, value in sent.items():
            if key not in kept:
                yield (*path, key)
            else:
                yield from _unknown(value, kept[key], (*path, key))
    elif isinstance(sent, list) and isinstance(kept, list) and len(sent) == len(kept):
        for i, (a, b) in enumerate(zip(sent, kept, strict=True)):
            yield from _unknown(a, b, (*path, i))


def _shown(parts: tuple[Any, ...]) -> str:
    steps = tuple((0, p) if isinstance(p, int) else (1, str(p)) for p in parts)
    return format_path(steps)


def _located(error: Mapping[str, Any], root: JSON) -> tuple[tuple[Any, ...], tuple[tuple[int, Any], ...]]:
    """An error's location split into the path in the data and the union members pydantic tried on the
    way (each with the depth it was tried at): a step that is no key or index of the data there names a
    member (a missing field's own name excepted)."""
    loc = tuple(error["loc"])
    data: list[JSON] = []
    tags: list[tuple[int, Any]] = []
    current = root
    for n, step in enumerate(loc):
        last_missing = n == len(loc) - 1 and error.get("type") == "missing"
        if (isinstance(current, Mapping) and step in current) or (
            isinstance(current, list) and isinstance(step, int) and 0 <= step < len(current)
        ):
            current = current[step]
        elif not last_missing:
            tags.append((len(data), step))
            continue
        data.append(step)
    return tuple(data), tuple(tags)


Located = tuple[tuple[Any, ...], tuple[tuple[int, Any], ...], str]
"""An error: its path in the data, the union members tried on the way, its message."""


def _closest(errors: list[Located]) -> list[tuple[tuple[Any, ...], str]]:
    """At each place a union was tried, the errors of the member that got furthest into the data
    (deepest error, then fewest), recursively: pydantic reports every member it tried. Where every member
    fails at one and the same place, one problem says what each wanted."""
    out = [(data, msg) for data, tags, msg in errors if not tags]
    unions: dict[tuple[Any, ...], dict[Any, list[Located]]] = {}
    for data, tags, msg in errors:
        if tags:
            depth, member = tags[0]
            unions.setdefault(data[:depth], {}).setdefault(member, []).append((data, tags[1:], msg))
    for place, members in unions.items():
        deepest = max(max(len(d) for d, _, _ in found) for found in members.values())
        best = [found for found in members.values() if max(len(d) for d, _, _ in found) == deepest]
        fewest = min(len(found) for found in best)
        best = [found for found in best if len(found) == fewest]
        same_place = {tuple(d for d, _, _ in found) for found in best}
        if len(best) > 1 and len(same_place) == 1 and len(next(iter(same_place))) == 1:
            # every closest member fails at one and the same place: say what each wanted there
            place = next(iter(same_place))[0]
            wanted = list(dict.fromkeys(msg for found in best for _, _, msg in found))
            shown = " | ".join(wanted[:4]) + (f" | … {len(wanted) - 4} more" if len(wanted) > 4 else "")
            out.append((place, f"no member of the union accepts it: {shown}"))
            continue
        out += _closest(min(best, key=len))
    return list(dict.fromkeys(out))


def _check(value: JSON, dotted: str, at: tuple[Any, ...]) -> list[Problem]:
    from pydantic import BaseModel, ValidationError

    name = dotted.removeprefix("list[").removesuffix("]").rpartition(".")[2]
    shown_type = f"list[{name}]" if dotted.startswith("list[") else name
    errors: list[dict[str, Any]] = []
    unknown: list[tuple[Any, ...]] = []
    try:
        validated = _adapter(dotted).validate_python(value)
    except ValidationError as exc:
        errors += [dict(e) for e in exc.errors()]  # TypedDicts, read and extended as plain dicts
    else:
        if not isinstance(validated, BaseModel) and not (
            isinstance(validated, list) and validated and isinstance(validated[0], BaseModel)
        ):  # a TypedDict: consume its iterables, then find the keys it dropped
            kept = _walk(validated, (), errors)
            if not errors:
                unknown = list(_unknown(value, kept, ()))
    located = [(*_located(e, value), str(e["msg"])) for e in errors]
    found = [(data, msg) for data, msg in _closest(located)]
    found += [(p, "the SDK type has no such key") for p in unknown]
    return [Problem(_shown((*at, *data)), msg, shown_type) for data, msg in found]


def problems(request_type: RequestType, body: Mapping[str, Any]) -> list[Problem]:
    """What the SDK request type rejects in ``body`` (``[]``: the provider would accept it)."""
    if isinstance(request_type, str):
        return _dedupe(_check(dict(body), request_type, ()))
    out: list[Problem] = []
    for key, value in body.items():
        if key not in request_type:
            out.append(Problem(_shown((key,)), "the request body has no such field", "request body"))
        else:
            out += _check(value, request_type[key], (key,))
    return _dedupe(out)


def _dedupe(found: list[Problem]) -> list[Problem]:
    return list(dict.fromkeys(found))


def rejections(api: str, actual: JSON, expected: JSON) -> list[Difference]:
    """The problems of the runtime's request ``actual`` that the expectation ``expected`` does not share,
    as ``provider-rejects`` differences; none when the api names no SDK type or the bodies are not
    objects. A problem the expectation shares is the spec's own request (a finding about the spec, listed
    in docs/findings.md), never charged to the runtime."""
    from wireconf.providers.registry import APIS

    record = APIS.get(api)
    if record is None or record.request_type is None or not isinstance(actual, Mapping):
        return []
    request_type = record.request_type(actual)
    found = problems(request_type, actual)
    if not found:
        return []
    shared = set(problems(request_type, expected)) if isinstance(expected, Mapping) else set()
    return [p.difference() for p in found if p not in shared]
