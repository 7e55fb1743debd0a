"""``prompty`` tools: a child ``.prompty`` file offered as one function whose parameters are its inputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from wireconf.reference_impl.schema import schema_to_wire
from wireconf.reference_impl.tool_kinds import SAFE_LOADER, Signature, tool_label

FENCE = "---"


def load_frontmatter(path: Path) -> dict[str, Any]:
    """The YAML frontmatter of a ``.prompty`` file: the block between its first two ``---`` lines.

    A missing file raises ``FileNotFoundError`` naming it; a file without a frontmatter mapping is a
    ``ValueError`` naming it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"the child prompty file {str(path)!r} does not exist") from None
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != FENCE:
        raise ValueError(f"{path}: a .prompty file starts with a '---' line opening its frontmatter")
    try:
        end = next(i for i, line in enumerate(lines[1:], 1) if line.strip() == FENCE)
    except StopIteration:
        raise ValueError(f"{path}: the frontmatter is not closed by a '---' line") from None
    try:
        data = yaml.load("\n".join(lines[1:end]), Loader=SAFE_LOADER) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}: the frontmatter is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: the frontmatter is not a mapping")
    return data


def input_properties(inputs: Any, path: Path) -> list[dict[str, Any]]:
    """The child's inputs as a Property list: written as a list, or as a mapping of name → Property."""
    if inputs is None:
        return []
    if isinstance(inputs, list):
        return inputs
    if isinstance(inputs, dict) and all(isinstance(v, dict) for v in inputs.values()):
        return [{"name": name, **prop} for name, prop in inputs.items()]
    raise ValueError(f"{path}: `inputs` is neither a list of properties nor a mapping of name to property")


def signatures(tool: dict[str, Any]) -> list[Signature]:
    if not tool.get("path"):
        raise ValueError(f"{tool_label(tool)} has no `path` to its child .prompty file")
    path = Path(tool["path"])
    try:
        child = load_frontmatter(path)
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"{tool_label(tool)}: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"{tool_label(tool)}: {exc}") from None
    parameters = schema_to_wire(input_properties(child.get("inputs"), path))
    return [Signature(tool.get("name"), tool.get("description") or child.get("description"), parameters)]
