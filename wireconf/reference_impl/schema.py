"""§7.1.4 schema conversion, §7.1.6 / §7.7 structured output (list[Property] → JSON Schema), and the
shape OpenAI's strict mode requires of a schema (used by strict output schemas and strict tools),
recursive as Prompty's vectors decide."""

from __future__ import annotations

from typing import Any

KIND_TO_JSON_TYPE: dict[str, str] = {
    "string": "string",
    "integer": "integer",
    "float": "number",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}


def json_type(prop: dict[str, Any]) -> str:
    """The table of §7.1.4; a kind outside it is an error (project decision 7.1.4/unknown-kind-raises)."""
    kind = prop.get("kind")
    if isinstance(kind, str) and kind in KIND_TO_JSON_TYPE:  # a list there is unhashable: no KeyError
        return KIND_TO_JSON_TYPE[kind]
    raise ValueError(
        f"property {prop.get('name')!r} has kind {kind!r}, which is not in the §7.1.4 table "
        f"({', '.join(KIND_TO_JSON_TYPE)})"
    )


def property_schema(prop: dict[str, Any]) -> dict[str, Any]:
    """One Property's schema. §7.1.4's pseudocode projects ``type``, ``description`` and ``enum``; as
    Prompty's vectors decide (rules 7.1.4/array-items, 7.1.4/nested-properties), an array's ``items``
    and an object's ``properties`` are projected too, the same way, at any depth. ``default`` and
    ``example`` are not projected."""
    prop_schema: dict[str, Any] = {"type": json_type(prop)}
    if prop.get("description"):
        prop_schema["description"] = prop["description"]
    if prop.get("enumValues"):
        prop_schema["enum"] = prop["enumValues"]
    if prop.get("kind") == "array" and prop.get("items"):
        prop_schema["items"] = property_schema(prop["items"])
    if prop.get("kind") == "object" and prop.get("properties"):
        prop_schema.update(_properties(prop["properties"]))
    return prop_schema


def _properties(properties: list[dict[str, Any]]) -> dict[str, Any]:
    """``properties`` and, when any is required, ``required`` (in declaration order)."""
    out: dict[str, Any] = {"properties": {}, "required": []}
    for prop in properties:
        out["properties"][prop["name"]] = property_schema(prop)
        if prop.get("required"):
            out["required"].append(prop["name"])
    if not out["required"]:
        del out["required"]
    return out


def schema_to_wire(properties: list[dict[str, Any]] | None) -> dict[str, Any]:
    """§7.1.4: a list[Property] as a JSON Schema object."""
    return {"type": "object", **_properties(properties or [])}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also admits null: ``null`` joins its type (and its enum, which would exclude it)."""
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    elif isinstance(kind, list):
        out["type"] = kind if "null" in kind else [*kind, "null"]
    else:
        return {"anyOf": [schema, {"type": "null"}]}
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def require_all(schema: dict[str, Any]) -> None:
    """Strict mode's object shape, in place (rules 7.7/strict-optional-properties-nullable and
    7.1.3/strict-optional-parameters-nullable): OpenAI rejects a strict schema whose ``required`` does not
    list every property, so every property is listed, in property order, and the ones that were optional
    admit null instead: the model may still leave them out, by sending null."""
    properties = schema.get("properties") or {}
    listed = set(schema.get("required") or [])
    for name in properties:
        if name not in listed:
            properties[name] = nullable(properties[name])
    if properties:
        schema["required"] = list(properties)


def close_nested(schema: dict[str, Any]) -> None:
    """Strict mode below the top level (rules 7.1.3/strict-nested-objects-closed and
    7.1.6/strict-nested-objects-closed): every nested object is closed and requires all of its
    properties too, as OpenAI demands of every object of a strict schema. Reaches objects in
    ``properties``, ``items`` and ``anyOf``."""
    for child in (schema.get("properties") or {}).values():
        _close_object(child)
    if isinstance(schema.get("items"), dict):
        _close_object(schema["items"])
    for branch in schema.get("anyOf") or []:
        _close_object(branch)


def _close_object(schema: dict[str, Any]) -> None:
    if not isinstance(schema, dict):
        return
    kinds = schema.get("type")
    if kinds == "object" or (isinstance(kinds, list) and "object" in kinds) or "properties" in schema:
        schema["additionalProperties"] = False
        require_all(schema)
    close_nested(schema)


def strict_output_schema(outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """The schema every strict structured-output mechanism sends for ``outputs`` (Chat's
    ``response_format``, the Responses API's ``text.format``): the §7.1.4 conversion, closed, with every
    property required and the optional ones nullable, at every depth, as Prompty's vectors decide
    (rules 7.7/strict-optional-properties-nullable, 7.1.6/strict-nested-objects-closed)."""
    json_schema = schema_to_wire(outputs)
    json_schema["additionalProperties"] = False
    require_all(json_schema)
    close_nested(json_schema)
    return json_schema


def closed_output_schema(outputs: list[dict[str, Any]]) -> dict[str, Any]:
    """The schema of a structured-output mechanism without OpenAI's strict-mode shape (Anthropic's
    ``output_config.format``, rule 7.5/outputs-as-output-config): the §7.1.4 conversion with every
    object closed (``additionalProperties: false``, which constrained decoding requires of objects),
    at every depth; ``required`` keeps its §7.1.4 meaning, so optional outputs stay optional and are
    not made nullable."""
    json_schema = schema_to_wire(outputs)
    _close_every_object(json_schema)
    return json_schema


def _close_every_object(schema: dict[str, Any]) -> None:
    if not isinstance(schema, dict):
        return
    if schema.get("type") == "object" or "properties" in schema:
        schema["additionalProperties"] = False
    for child in (schema.get("properties") or {}).values():
        _close_every_object(child)
    if isinstance(schema.get("items"), dict):
        _close_every_object(schema["items"])


def output_schema_to_wire(outputs: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    """§7.1.6: ``response_format`` for non-empty outputs, else ``None``."""
    if not outputs:
        return None
    return {
        "type": "json_schema",
        "json_schema": {"name": "structured_output", "strict": True, "schema": strict_output_schema(outputs)},
    }
