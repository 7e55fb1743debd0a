"""``openapi`` tools: every operation of an OpenAPI 3 document offered as one function.

The projection (the spec leaves ``openapi_op_to_func_def`` undefined; project decisions
7.1.3/openapi-*): the name is the ``operationId`` (else ``<method>_<path>`` with every run of other
characters than letters and digits as ``_``), the description is the operation's ``description``, else
its ``summary``; the parameters are an object whose properties are the path and query parameters
(path-level ones first, an operation's own overriding them by name and location), each the
parameter's schema with the parameter's description, required as the parameter says (path
parameters always), then ``body``: the ``application/json`` request body's schema, required when the
body is. Local ``$ref``s (``#/...``) are inlined. Header and cookie parameters are left to the
connection.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

from wireconf.reference_impl.tool_kinds import SAFE_LOADER, Signature, tool_label

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
LLM_LOCATIONS = ("path", "query")
BODY = "body"


def load_document(tool: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI document: a mapping given inline, or the JSON / YAML file the string names."""
    spec, label = tool.get("specification"), tool_label(tool)
    if isinstance(spec, dict):
        document: Any = spec
        where = "the inline specification"
    elif isinstance(spec, str) and spec:
        where = spec
        try:
            text = Path(spec).read_text(encoding="utf-8")
        except OSError as exc:
            raise FileNotFoundError(f"{label}: cannot read the OpenAPI document {spec!r}: {exc}") from None
        try:
            document = yaml.load(text, Loader=SAFE_LOADER)
        except yaml.YAMLError as exc:
            raise ValueError(f"{label}: the OpenAPI document {spec!r} does not parse: {exc}") from None
    else:
        raise ValueError(f"{label} has no `specification` (a path to an OpenAPI document)")
    if not isinstance(document, dict) or not str(document.get("openapi", "")).startswith("3."):
        raise ValueError(f"{label}: {where} is not an OpenAPI 3 document (no `openapi: 3.x`)")
    if not isinstance(document.get("paths"), dict):
        raise ValueError(f"{label}: {where} has no `paths` mapping")
    return document


def _pointer(document: dict[str, Any], ref: str) -> Any:
    if not ref.startswith("#/"):
        raise ValueError(f"only local references are supported, not {ref!r}")
    node: Any = document
    for token in ref[2:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or token not in node:
            raise ValueError(f"the reference {ref!r} points at nothing")
        node = node[token]
    return node


def inline_refs(node: Any, document: dict[str, Any], seen: tuple[str, ...] = ()) -> Any:
    """A copy of ``node`` with every local ``$ref`` replaced by what it points at (cycles are errors)."""
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen:
                raise ValueError(f"the reference {ref!r} is cyclic")
            return inline_refs(_pointer(document, ref), document, (*seen, ref))
        return {key: inline_refs(value, document, seen) for key, value in node.items()}
    if isinstance(node, list):
        return [inline_refs(item, document, seen) for item in node]
    return copy.deepcopy(node)


def operation_name(method: str, path: str, operation: dict[str, Any]) -> str:
    if operation.get("operationId"):
        return str(operation["operationId"])
    return re.sub(r"[^A-Za-z0-9]+", "_", f"{method}_{path}").strip("_")


def _parameters(path_item: dict[str, Any], operation: dict[str, Any]) -> list[dict[str, Any]]:
    merged: dict[tuple[Any, Any], dict[str, Any]] = {}
    for param in [*(path_item.get("parameters") or []), *(operation.get("parameters") or [])]:
        merged[(param.get("name"), param.get("in"))] = param
    return list(merged.values())


def operation_parameters(path_item: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    required: list[str] = []
    for param in _parameters(path_item, operation):
        if param.get("in") not in LLM_LOCATIONS:
            continue
        prop = dict(param.get("schema") or {})
        if param.get("description"):
            prop["description"] = param["description"]
        schema["properties"][param["name"]] = prop
        if param.get("in") == "path" or param.get("required"):
            required.append(param["name"])
    body = operation.get("requestBody") or {}
    body_schema = ((body.get("content") or {}).get("application/json") or {}).get("schema")
    if body_schema is not None:
        schema["properties"][BODY] = body_schema
        if body.get("required"):
            required.append(BODY)
    if required:
        schema["required"] = required
    return schema


def signatures(tool: dict[str, Any]) -> list[Signature]:
    document = load_document(tool)
    try:
        paths = inline_refs(document["paths"], document)
    except ValueError as exc:
        raise ValueError(f"{tool_label(tool)}: {exc}") from None
    found: list[Signature] = []
    for path, path_item in paths.items():
        for method, operation in path_item.items():
            if method not in METHODS:
                continue
            description = operation.get("description") or operation.get("summary")
            parameters = operation_parameters(path_item, operation)
            found.append(Signature(operation_name(method, path, operation), description, parameters))
    return found
