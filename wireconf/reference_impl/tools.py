"""§7.1.3 tool conversion: every tool kind projected as OpenAI function definitions.

``PROJECTORS`` maps a built-in tool kind to its projection; any other kind is a custom tool whose
signature comes from the tool registry (``wireconf.reference_impl.tool_kinds.registry``). Bindings and strict
mode are applied to every function a tool projects to, whatever its kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wireconf.reference_impl.schema import close_nested, require_all, schema_to_wire
from wireconf.reference_impl.tool_kinds import Signature, mcp, openapi, prompty, registry

FuncDef = dict[str, Any]
Projector = Callable[[dict[str, Any]], list[FuncDef]]


def _function(name: Any, description: Any, parameters: dict[str, Any]) -> FuncDef:
    """A function definition; a null description is omitted (7.1.3/null-description-omitted)."""
    function: dict[str, Any] = {"name": name}
    if description is not None:
        function["description"] = description
    function["parameters"] = parameters
    return {"type": "function", "function": function}


def project_function(tool: dict[str, Any]) -> list[FuncDef]:
    return [_function(tool.get("name"), tool.get("description"), schema_to_wire(tool.get("parameters")))]


def _from_signatures(signatures: Callable[[dict[str, Any]], list[Signature]]) -> Projector:
    def project(tool: dict[str, Any]) -> list[FuncDef]:
        return [_function(*signature) for signature in signatures(tool)]

    return project


PROJECTORS: dict[str, Projector] = {
    "function": project_function,
    "prompty": _from_signatures(prompty.signatures),
    "mcp": _from_signatures(mcp.signatures),
    "openapi": _from_signatures(openapi.signatures),
}
project_custom = _from_signatures(registry.signatures)


def project_tool(tool: dict[str, Any]) -> list[FuncDef]:
    kind = tool.get("kind")
    projector = PROJECTORS.get(kind) if isinstance(kind, str) else None  # a list there is unhashable
    return (projector or project_custom)(tool)


def bound_names(bindings: list[dict[str, Any]] | dict[str, Any]) -> list[str]:
    """The names of the bound arguments, in either form of the spec's model: a list of ``{name, input}``,
    or a mapping keyed by argument name (``{unit: {input: preferred_unit}}``, the form of Prompty's
    vectors: rule 7.1.3/bindings-named-form)."""
    if isinstance(bindings, dict):
        return list(bindings)
    return [binding["name"] for binding in bindings]


def strip_bindings(parameters: dict[str, Any], bindings: list[dict[str, Any]] | dict[str, Any]) -> None:
    """§7.1.3: bound parameters leave ``properties`` and ``required``; a ``required`` list they empty
    stays, empty, as the pseudocode leaves it (rule 7.1.3/bindings-emptied-required-kept)."""
    for name in bound_names(bindings):
        parameters.get("properties", {}).pop(name, None)
        if name in parameters.get("required", []):
            parameters["required"].remove(name)


def tools_to_wire(tools: list[dict[str, Any]] | None, inputs: Any = None) -> list[FuncDef] | None:
    """The wire ``tools`` list, or ``None`` when it would be empty (the key is then omitted)."""
    wire_tools: list[FuncDef] = []
    for tool in tools or []:
        for func_def in project_tool(tool):
            if tool.get("bindings"):
                strip_bindings(func_def["function"]["parameters"], tool["bindings"])
            if tool.get("strict"):
                func_def["function"]["strict"] = True
                func_def["function"]["parameters"]["additionalProperties"] = False
                # project decisions 7.1.3/strict-optional-parameters-nullable, strict-nested-objects-closed
                require_all(func_def["function"]["parameters"])
                close_nested(func_def["function"]["parameters"])
            wire_tools.append(func_def)
    return wire_tools or None
