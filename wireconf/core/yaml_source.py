"""YAML loading that remembers where each mapping and key came from, and refuses alias bombs.

Case files are read with libyaml's C parser when it is present (the constructor stays in Python, so
line tracking costs little). Every mapping becomes a ``LineDict``: a plain ``dict`` that also knows its
own line and the line of each key, so that a validation error or a failing comparison can point at
``file:line`` like tavern does.

Aliases are shared when loaded but copied by everything that walks the data (``to_plain``, pydantic,
the comparer), so a few lines of anchors can stand for billions of nodes ("billion laughs"), or one
long string for gigabytes. Before anything is built, the composed node graph is measured: a file whose
aliases add more than ``MAX_ALIAS_NODES`` nodes or ``MAX_ALIAS_CHARS`` characters of scalars, or whose
alias refers to the node that contains it, is refused with the line of the first node that crosses the
bound. Files without anchors skip that measurement. Every file is also refused when it nests deeper than
``MAX_DEPTH`` (what reads the data recursively, the parse cache's pickle and ``to_plain`` among them,
would stop with a ``RecursionError``). ``load_plain_yaml`` applies the same bounds to the other YAML
files the harness reads (baselines, imported cassettes), for which no line tracking is needed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from wireconf.core.errors import WireconfError
from wireconf.core.untyped import YAML

_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_ALIAS_NODES = 100_000
"""How many nodes aliases may add to one file when expanded. The corpus's heaviest anchor reuse adds
a few thousand; an alias bomb adds billions."""

MAX_ALIAS_CHARS = 20_000_000
"""How many characters of scalars aliases may add to one file when expanded (one long string aliased
many times is small in nodes and huge in memory); the corpus's aliases add a few kilobytes."""

MAX_DEPTH = 100
"""How deep a file may nest collections. The corpus's deepest file nests 17 levels."""

_ALIAS_LIKE = re.compile(r"(?:^|[\s\[\{,])\*[^\s,\[\]\{\}]", re.MULTILINE)
_ANCHOR_LIKE = re.compile(r"(?:^|[\s\[\{,])&[^\s,\[\]\{\}]", re.MULTILINE)


class LineDict(dict[Any, Any]):  # a YAML mapping: its keys and values are whatever the file holds
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
    """Valid YAML that is refused: its aliases expand beyond ``MAX_ALIAS_NODES`` / ``MAX_ALIAS_CHARS``
    or into themselves, or it nests deeper than ``MAX_DEPTH``."""

    default_hint = (
        f"a file nests at most {MAX_DEPTH} levels and its aliases add at most {MAX_ALIAS_NODES:,} nodes "
        f"and {MAX_ALIAS_CHARS:,} characters: write the repeated data out once, or split the file"
    )

    def described(self) -> str:
        return str(self)


class YamlUnreadable(YamlSyntaxError):
    """A file that cannot be read as text (missing, unreadable, not UTF-8)."""

    def described(self) -> str:
        return str(self)


def _check_depth(root: yaml.Node) -> None:
    """Raise ``YamlRefused`` when the graph, aliases expanded, nests deeper than ``MAX_DEPTH``: level by
    level (run after ``_check_aliases``, which bounds the expansion and refuses an alias into itself)."""
    level = [root]
    for depth in range(1, MAX_DEPTH + 2):
        below: list[yaml.Node] = []
        for node in level:
            if isinstance(node, yaml.SequenceNode):
                below += node.value
            elif isinstance(node, yaml.MappingNode):
                for pair in node.value:
                    below += pair
        if not below:
            return
        if depth == MAX_DEPTH:
            line = below[0].start_mark.line + 1
            raise YamlRefused(f"nested deeper than {MAX_DEPTH} levels (at line {line})", line)
        level = below


def _check_aliases(root: yaml.Node) -> None:
    """Measure the expanded size of the node graph (each node once, memoised), in nodes and in
    characters of scalars; raise ``YamlRefused`` at the first node whose expansion crosses a bound, or
    at an alias that contains itself."""
    sizes: dict[int, int] = {}
    chars: dict[int, int] = {}
    distinct = 0
    distinct_chars = 0
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
            weight = _own_chars(node) + sum(chars[id(child)] for child in children)
            chars[key] = weight
            if size - distinct > MAX_ALIAS_NODES and size > MAX_ALIAS_NODES:
                raise YamlRefused(
                    f"aliases expand this file beyond {MAX_ALIAS_NODES:,} nodes: the node at line "
                    f"{node.start_mark.line + 1} alone stands for {size:,} (an alias bomb?)",
                    node.start_mark.line + 1,
                )
            if weight - distinct_chars > MAX_ALIAS_CHARS and weight > MAX_ALIAS_CHARS:
                raise YamlRefused(
                    f"aliases expand this file beyond {MAX_ALIAS_CHARS:,} characters: the node at line "
                    f"{node.start_mark.line + 1} alone stands for {weight:,} (an alias bomb?)",
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
        distinct_chars += _own_chars(node)
        stack.append((node, True))
        for child in _children(node):
            if id(child) in on_path:
                raise YamlRefused(
                    "an alias refers to the node that contains it (a structure with no end)",
                    child.start_mark.line + 1,
                )
            if id(child) not in sizes:
                stack.append((child, False))


def _own_chars(node: yaml.Node) -> int:
    return len(node.value) if isinstance(node, yaml.ScalarNode) else 0


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


class _DuplicateKey(yaml.MarkedYAMLError):
    pass


class _LineLoader(_BaseLoader):  # type: ignore[misc]  # _BaseLoader is chosen at run time (libyaml or not)
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


def _checked(loader: Any, text: str) -> YAML:
    """Compose ``text`` with ``loader``, measure it (depth, aliases) and only then build it."""
    node = loader.get_single_node()
    if node is None:
        return None
    if _ANCHOR_LIKE.search(text) and _ALIAS_LIKE.search(text):
        _check_aliases(node)
    _check_depth(node)
    return loader.construct_document(node)


def load_plain_yaml(text: str, loader: type = _BaseLoader) -> YAML:
    """``yaml.load(text, loader)`` under the bounds of ``load_yaml`` (depth, aliases): plain dicts, no
    line tracking. Raises ``YamlRefused`` for a refused file, ``yaml.YAMLError`` for invalid YAML."""
    parser = loader(text)
    try:
        return _checked(parser, text)
    finally:
        parser.dispose()


def load_yaml(text: str) -> YAML:
    """Parse YAML text into plain data with ``LineDict`` mappings; raises ``YamlSyntaxError`` (or
    ``YamlRefused`` for an alias bomb or a file nested too deep, before anything is built)."""
    loader = _LineLoader(text)
    try:
        return _checked(loader, text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        raise YamlSyntaxError(f"{exc.problem or exc}", line) from exc
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(str(exc), 0) from exc
    finally:
        loader.dispose()


def load_yaml_file(path: Path) -> YAML:
    """Read and parse one YAML file; an unreadable file is reported like a syntax error at line 0."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise YamlUnreadable(unicode_problem(exc), 0) from exc
    except OSError as exc:
        raise YamlUnreadable(f"cannot read: {exc}", 0) from exc
    return load_yaml(text)


def unicode_problem(exc: UnicodeDecodeError) -> str:
    """What a file that is not UTF-8 is said to be: where the first byte that is not is."""
    return f"not UTF-8 text: byte 0x{exc.object[exc.start]:02x} at offset {exc.start} ({exc.reason})"


def line_of(data: YAML, loc: Sequence[Any]) -> int:
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


def to_plain(data: YAML) -> Any:
    """A deep copy with every ``LineDict`` turned into a plain ``dict`` (what adapters receive)."""
    if isinstance(data, dict):
        return {k: to_plain(v) if isinstance(v, dict | list) else v for k, v in data.items()}
    if isinstance(data, list):  # a scalar is its own copy: no call for each (a list of 1536 floats)
        return [to_plain(v) if isinstance(v, dict | list) else v for v in data]
    return data
