"""§7.1.4 schema conversion and §7.1.6 structured output (list[Property] → JSON Schema)."""

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
    try:
        return KIND_TO_JSON_TYPE[kind]  # type: ignore[index]
    except KeyError:
        raise ValueError(
            f"property {prop.get('name')!r} has kind {kind!r}, which is not in the §7.1.4 table "
            f"({', '.join(KIND_TO_JSON_TYPE)})"
        ) from None


def schema_to_wire(properties: list[dict[str, Any]] | None) -> dict[str, Any]:
    """Only ``type``, ``description`` and ``enum`` are projected, as the pseudocode does."""
    schema: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    for prop in properties or []:
        prop_schema: dict[str, Any] = {"type": json_type(prop)}
        if prop.get("description"):
            prop_schema["description"] = prop["description"]
        if prop.get("enumValues"):
            prop_schema["enum"] = prop["enumValues"]
        schema["properties"][prop["name"]] = prop_schema
        if prop.get("required"):
            schema["required"].append(prop["name"])
    if not schema["required"]:
        del schema["required"]
    return schema


def output_schema_to_wire(outputs: list[dict[str, Any]] | None) -> dict[str, Any] | None:
    """§7.1.6: ``response_format`` for non-empty outputs, else ``None``."""
    if not outputs:
        return None
    json_schema = schema_to_wire(outputs)
    json_schema["additionalProperties"] = False
    return {
        "type": "json_schema",
        "json_schema": {"name": "structured_output", "strict": True, "schema": json_schema},
    }
