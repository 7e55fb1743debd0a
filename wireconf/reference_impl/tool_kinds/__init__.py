"""§7.1.3 tool kinds other than ``function``: each module turns one tool into the signatures of the
functions it offers the LLM; ``wireconf.reference_impl.tools`` wraps them into the wire shape and applies
bindings and strict mode the same way for every kind.

Relative paths in a tool (a prompty ``path``, an OpenAPI ``specification``, an MCP ``connection.cwd``)
are resolved against the current directory; the wireconf harness hands runtimes absolute paths.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""PyYAML's safe loader, on libyaml where PyYAML was built with it: ten times faster than the pure-Python
one on the files tools name (an OpenAPI document, a child's frontmatter), read again at every call."""


class Signature(NamedTuple):
    """One function a tool offers: its name, description (``None`` when it has none) and the JSON Schema
    of its parameters."""

    name: Any
    description: Any
    parameters: dict[str, Any]


def tool_label(tool: dict[str, Any]) -> str:
    """How errors name a tool: its name and kind."""
    return f"{tool.get('kind')} tool {tool.get('name')!r}"
