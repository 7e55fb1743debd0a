"""Relative paths to data files in a case's inputs, resolved against the case file's folder.

A case names data files (a child ``.prompty``, an OpenAPI document, an MCP server's working directory)
relative to the file that holds the case, as a ``.prompty`` file names its tools' files relative to
itself. Runtimes resolve relative paths against their own current directory, which is not the case's,
so the harness hands them absolute paths: these fields of ``agent.tools[]`` and nothing else.

- ``path`` (prompty tools);
- ``specification`` when it is a string and not a URL (openapi tools; a mapping is an inline document);
- ``connection.cwd`` (mcp tools over stdio; the server's ``args`` are relative to it).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from wireconf.core.untyped import YAML

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")

PATH_FIELDS = ("tools[].path", "tools[].specification", "tools[].connection.cwd")


def _absolute(value: YAML, base: Path) -> YAML:
    if not isinstance(value, str) or not value or _URL.match(value) or os.path.isabs(value):
        return value
    return os.path.normpath(base / value)


def resolve_agent_paths(agent: dict[str, Any], base: Path) -> dict[str, Any]:
    """``agent`` (a fresh plain copy, edited in place) with its tools' relative data paths made absolute."""
    for tool in agent.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        for key in ("path", "specification"):
            if key in tool:
                tool[key] = _absolute(tool[key], base)
        connection = tool.get("connection")
        if isinstance(connection, dict) and "cwd" in connection:
            connection["cwd"] = _absolute(connection["cwd"], base)
    return agent
