"""§7.1.3 tool conversion: every tool kind projected as OpenAI function definitions.

``PROJECTORS`` maps a tool kind to its projection; kinds without one are errors for now (prompty, mcp,
openapi and custom tools plug in here).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference_impl.schema import schema_to_wire

FuncDef = dict[str, Any]


def _function(name: Any, description: Any, parameters: dict[str, Any]) -> FuncDef:
    """A function definition; a null description is omitted (7.1.3/null-description-omitted)."""
    function: dict[str, Any] = {"name": name}
    if description is not None:
        function["description"] = description
    function["parameters"] = parameters
    return {"type": "function", "function": function}


def project_function(tool: dict[str, Any]) -> list[FuncDef]:
    return [_function(tool.get("name"), tool.get("description"), schema_to_wire(tool.get("parameters")))]


PROJECTORS: dict[str, Callable[[dict[str, Any]], list[FuncDef]]] = {"function": project_function}


def project_tool(tool: dict[str, Any]) -> list[FuncDef]:
    kind = tool.get("kind")
    projector = PROJECTORS.get(kind)  # type: ignore[arg-type]
    if projector is None:
        raise ValueError(f"tool {tool.get('name')!r}: no projection for tool kind {kind!r}")
    return projector(tool)


def _strip_bindings(parameters: dict[str, Any], bindings: list[dict[str, Any]]) -> None:
    for binding in bindings:
        name = binding["name"]
        parameters.get("properties", {}).pop(name, None)
        if name in parameters.get("required", []):
            parameters["required"].remove(name)
    if "required" in parameters and not parameters["required"]:
        del parameters["required"]  # project decision 7.1.3/bindings-empty-required-dropped


def tools_to_wire(tools: list[dict[str, Any]] | None, inputs: Any = None) -> list[FuncDef] | None:
    """The wire ``tools`` list, or ``None`` when it would be empty (the key is then omitted)."""
    wire_tools: list[FuncDef] = []
    for tool in tools or []:
        for func_def in project_tool(tool):
            if tool.get("bindings"):
                _strip_bindings(func_def["function"]["parameters"], tool["bindings"])
            if tool.get("strict"):
                func_def["function"]["strict"] = True
                func_def["function"]["parameters"]["additionalProperties"] = False
            wire_tools.append(func_def)
    return wire_tools or None
