"""Surgical edits of a case file: set or remove keys of one case, leaving every other byte as it was.

The file is composed (not loaded) to find the case's mapping and the exact text span of each key and
its value; only those spans are rewritten, so comments, anchors, flow mappings and blank lines
elsewhere survive. A new value is written in the corpus's style: block mappings, flow style for
collections of scalars. A value that carries an anchor (``&name``, reused elsewhere) is not changed.
"""

from __future__ import annotations

from typing import Any

import yaml

from wireconf.core.errors import WireconfError

_Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _CaseDumper(yaml.SafeDumper):
    """Sequences indented under their key (``key:\n  - item``), as the corpus writes them."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


class EditError(WireconfError):
    """The edit cannot be made safely; the message says why."""


def render(key: str, value: Any, indent: int) -> str:
    """``key: value`` as YAML lines, every line after the first indented by ``indent`` spaces."""
    flow = None if isinstance(value, dict | list) else False  # leaf collections in flow style
    text = yaml.dump(
        {key: value},
        Dumper=_CaseDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=flow,
        width=110,
    ).rstrip("\n")
    return text.replace("\n", "\n" + " " * indent)


def _case_node(root: Any, case_id: str) -> yaml.MappingNode:
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if key.value == "cases" and isinstance(value, yaml.SequenceNode):
                for item in value.value:
                    if isinstance(item, yaml.MappingNode):
                        ids = [
                            v.value
                            for k, v in item.value
                            if k.value == "id" and isinstance(v, yaml.ScalarNode)
                        ]
                        if ids == [case_id]:
                            return item
    raise EditError(f"no case with id {case_id!r} in the file")


def _trim(text: str, start: int, end: int) -> int:
    """``end`` moved back over trailing whitespace, and over lines that are blank or only a comment
    (those belong to what follows)."""
    while True:
        while end > start and text[end - 1] in " \t\r\n":
            end -= 1
        line_start = max(text.rfind("\n", start, end) + 1, start)
        if line_start > start and text[line_start:end].lstrip().startswith("#"):
            end = line_start
            continue
        return end


def _value_spans(text: str, case: yaml.MappingNode) -> dict[str, tuple[int, int, int]]:
    """key → (where the key starts, where its value starts, where its value ends), from the keys'
    own marks only: a value that is an alias has the marks of the node it refers to."""
    pairs = [(k, v) for k, v in case.value if isinstance(k, yaml.ScalarNode)]
    spans = {}
    for index, (key, _) in enumerate(pairs):
        following = pairs[index + 1][0].start_mark.index if index + 1 < len(pairs) else case.end_mark.index
        value_start = key.end_mark.index
        colon = text.index(":", value_start) + 1
        while colon < len(text) and text[colon] in " \t":
            colon += 1
        spans[key.value] = (key.start_mark.index, colon, _trim(text, value_start, following))
    return spans


def edit_case(text: str, case_id: str, set_values: dict[str, Any], remove: tuple[str, ...] = ()) -> str:
    """``text`` with the case's keys in ``set_values`` set (replaced in place, or added after its last
    key) and the keys in ``remove`` removed."""
    case = _case_node(yaml.compose(text, Loader=_Loader), case_id)
    if case.flow_style:
        raise EditError(
            f"case {case_id} is written as a flow mapping ({{...}}); write it in block style first"
        )
    spans = _value_spans(text, case)
    column = case.value[0][0].start_mark.column
    edits: list[tuple[int, int, str]] = []
    added: list[str] = []
    for name, value in set_values.items():
        if name in spans:
            start, value_start, end = spans[name]
            if text.startswith("&", value_start):
                raise EditError(
                    f"{case_id}: `{name}` carries an anchor that other cases may use; edit it by hand"
                )
            edits.append((start, end, render(name, value, column)))
        else:
            added.append("\n" + " " * column + render(name, value, column))
    if added:
        end = max(end for _, _, end in spans.values())
        edits.append((end, end, "".join(added)))
    for name in remove:
        if name in spans:
            start, _, end = spans[name]
            line_start = text.rfind("\n", 0, start) + 1
            if text[line_start:start].strip() == "":  # the key's own lines go, newline included
                start = line_start
                end = text.find("\n", end) + 1 if text.find("\n", end) != -1 else len(text)
            edits.append((start, end, ""))
    for start, end, replacement in sorted(edits, key=lambda e: e[0], reverse=True):
        text = text[:start] + replacement + text[end:]
    return text
