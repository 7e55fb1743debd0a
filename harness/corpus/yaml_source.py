"""YAML loading that remembers where each mapping and key came from.

Case files are read with libyaml's C parser when it is present (the constructor stays in Python, so
line tracking costs little). Every mapping becomes a ``LineDict``: a plain ``dict`` that also knows its
own line and the line of each key, so that a validation error or a failing comparison can point at
``file:line`` like tavern does.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from harness.errors import WireconfError

_BaseLoader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


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
    """Parse YAML text into plain data with ``LineDict`` mappings; raises ``YamlSyntaxError``."""
    try:
        return yaml.load(text, Loader=_LineLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 0
        raise YamlSyntaxError(f"{exc.problem or exc}", line) from exc
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(str(exc), 0) from exc


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
        return {k: to_plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [to_plain(v) for v in data]
    return data
