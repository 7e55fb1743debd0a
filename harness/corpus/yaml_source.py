"""YAML loading that remembers where each mapping and key came from, and refuses alias bombs.

Case files are read with libyaml's C parser when it is present (the constructor stays in Python, so
line tracking costs little). Every mapping becomes a ``LineDict``: a plain ``dict`` that also knows its
own line and the line of each key, so that a validation error or a failing comparison can point at
``file:line`` like tavern does.

Aliases are shared when loaded but copied by everything that walks the data (``to_plain``, pydantic,
the comparer), so a few lines of anchors can stand for billions of nodes ("billion laughs"). Before
anything is built, the composed node graph is measured: a file whose aliases add more than
``MAX_ALIAS_NODES`` nodes, or whose alias refers to the node that contains it, is refused with the line
of the first node that crosses the bound. Files without anchors skip the measurement.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from harness.errors import WireconfError

_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_ALIAS_NODES = 100_000
"""How many nodes aliases may add to one file when expanded. The corpus's heaviest anchor reuse adds
a few thousand; an alias bomb adds billions."""

_ALIAS_LIKE = re.compile(r"(?:^|[\s\[\{,])\*[^\s,\[\]\{\}]", re.MULTILINE)
_ANCHOR_LIKE = re.compile(r"(?:^|[\s\[\{,])&[^\s,\[\]\{\}]", re.MULTILINE)


class LineDict(dict):
    """A dict with ``line`` (1-based, where the mapping starts) and ``key_lines`` (key → 1-based line)."""

    __slots__ = ("key_lines", "line")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line: int = 0
        self.key_lines: dict[Any, int] = {}


class YamlSyntaxError(WireconfError):
    """A file that is not valid YAML; ``line`` is 1-based (0 when unknown)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line

    def described(self) -> str:
        return f"not valid YAML: {self}"


class YamlRefused(YamlSyntaxError):
    """Valid YAML that is refused: its aliases expand beyond ``MAX_ALIAS_NODES`` or into themselves."""

    def described(self) -> str:
        return str(self)


def _check_aliases(root: yaml.Node) -> None:
    """Measure the expanded size of the node graph (each node once, memoised); raise ``YamlRefused``
    at the first node whose expansion crosses the bound, or at an alias that contains itself."""
    sizes: dict[int, int] = {}
    distinct = 0
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            children = _children(node)
            size = 1 + sum(sizes[id(child)] for child in children)
            sizes[key] = size
            if size - distinct > MAX_ALIAS_NODES and size > MAX_ALIAS_NODES:
                raise YamlRefused(
                    f"aliases expand this file beyond {MAX_ALIAS_NODES:,} nodes: the node at line "
                    f"{node.start_mark.line + 1} alone stands for {size:,} (an alias bomb?)",
                    node.start_mark.line + 1,
                )
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise YamlRefused(
                "an alias refers to the node that contains it (a structure with no end)",
                node.start_mark.line + 1,
            )
        on_path.add(key)
        distinct += 1
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                raise YamlRefused(
                    "an alias refers to the node that contains it (a structure with no end)",
                    child.start_mark.line + 1,
                )
            if id(child) not in sizes:
                stack.append((child, False))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


class _DuplicateKey(yaml.MarkedYAMLError):
    pass


class _LineLoader(_BaseLoader):  # type: ignore[misc, valid-type]
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> LineDict:
        self.flatten_mapping(node)
        result = LineDict()
        result.line = node.start_mark.line + 1
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in result:
                raise _DuplicateKey(
                    "while constructing a mapping",
                    node.start_mark,
                    f"found duplicate key {key!r}",
                    key_node.start_mark,
                )
            result[key] = self.construct_object(value_node, deep=deep)
            result.key_lines[key] = key_node.start_mark.line + 1
        return result


def _construct_yaml_map(loader: _LineLoader, node: yaml.MappingNode) -> Iterator[LineDict]:
    data = LineDict()
    yield data
    built = loader.construct_mapping(node)
    data.update(built)
    data.line, data.key_lines = built.line, built.key_lines


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_yaml_map)


def load_yaml(text: str) -> Any:
    """Parse YAML text into plain data with ``LineDict`` mappings; raises ``YamlSyntaxError`` (or
    ``YamlRefused`` for an alias bomb, before anything is built)."""
    loader = _LineLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if _ANCHOR_LIKE.search(text) and _ALIAS_LIKE.search(text):
            _check_aliases(node)
        return loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        raise YamlSyntaxError(f"{exc.problem or exc}", line) from exc
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(str(exc), 0) from exc
    finally:
        loader.dispose()


def load_yaml_file(path: Path) -> Any:
    """Read and parse one YAML file; an unreadable file is reported like a syntax error at line 0."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise YamlSyntaxError(f"cannot read: {exc}", 0) from exc
    return load_yaml(text)


def line_of(data: Any, loc: Sequence[Any]) -> int:
    """The best line for a location inside loaded data: the deepest key on the path that has one."""
    line = data.line if isinstance(data, LineDict) else 0
    node = data
    for part in loc:
        if isinstance(node, LineDict):
            if part in node.key_lines:
                line = node.key_lines[part]
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            if isinstance(node, LineDict):
                line = node.line
        else:
            break
    return line


def to_plain(data: Any) -> Any:
    """A deep copy with every ``LineDict`` turned into a plain ``dict`` (what adapters receive)."""
    if isinstance(data, dict):
        return {k: to_plain(v) if isinstance(v, dict | list) else v for k, v in data.items()}
    if isinstance(data, list):  # a scalar is its own copy: no call for each (a list of 1536 floats)
        return [to_plain(v) if isinstance(v, dict | list) else v for v in data]
    return data
