"""Case inputs checked against the spec authors' own model of an agent (``wireconf lint``).

Prompty's ``schema/tsp-output/json-ast/model.json`` (microsoft/prompty at 75e4d0e5, MIT) describes every
type of an ``Agent`` as its TypeSpec sources define it: properties, which are required, collections,
discriminated families (``Property`` → ``ArrayProperty`` by ``kind: array``; ``Tool`` → ``CustomTool``
for any kind the others do not claim) and scalar shorthands (``model: gpt-4o`` for ``{id: gpt-4o}``). A
case whose ``agent`` that model rejects (an ``array`` property without ``items``, a custom tool without
``connection``) judges the runtime's *loader*, not §7/§8, so lint rejects it.

The model is third-party data and is never copied into wireconf: it is read where it lies, from
``$WIRECONF_THIRD_PARTY/prompty-75e4d0e5/model.json`` or ``../shared/third-party/…`` (as ``wireconf
findings`` finds the third-party runtimes), and translated here into a JSON Schema that the
``jsonschema`` package checks. Translating at run time, rather than committing a schema derived from it,
keeps the project free of the authors' content and always in step with the file the corpus is checked
against; where the file is absent (an installed wireconf), lint says the check was skipped.

The translation, from the model's own fields:

- a property is required when it is not optional, has no explicit default (``Agent.name`` has one,
  ``ArrayProperty.items`` none) and is not a collection or a mapping: an absent list or mapping reads as
  an empty one, as the authors' own generated loaders read it (their TypeScript loader accepts a
  function tool without ``parameters`` and refuses an array property without ``items``);
- ``isCollection``: a list of the type; ``isNamedCollection``: that, or a mapping name → item;
  ``isDict``: a mapping; ``isAny`` / ``unknown``: anything;
- a type with a ``discriminator`` and ``childTypes``: each child's own value of the discriminator (the
  default of its ``kind`` property) selects the child's properties besides the base's; a child whose
  value is ``*`` takes every other value; otherwise, unless the base's enum is open (``isOpenEnum``:
  ``Connection.kind: stdio`` is a connection of the base type), the value must be one the base allows
  or a child's;
- ``coercions`` and ``entryShorthand``: the scalars the type may be written as;
- keys the model does not name are left alone (the model says nothing of them), and so is a null value
  of a property that is not required.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jsonschema

from wireconf.core.untyped import JSON, YAML

if TYPE_CHECKING:
    from wireconf.corpus.loader import Corpus

MODEL_PATH = Path("prompty-75e4d0e5", "model.json")
"""Where the model lies inside the third-party folder."""

_SCALARS: dict[str, dict[str, Any]] = {
    "string": {"type": "string"},
    "boolean": {"type": "boolean"},
    "int32": {"type": "integer"},
    "int64": {"type": "integer"},
    "integer": {"type": "integer"},
    "float32": {"type": "number"},
    "float64": {"type": "number"},
    "float": {"type": "number"},
    "number": {"type": "number"},
    "unknown": {},
    "dictionary": {"type": "object"},
}


def model_file(environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> Path | None:
    """The model's path when it is here: under ``$WIRECONF_THIRD_PARTY``, else ``../shared/third-party``."""
    environ = os.environ if environ is None else environ
    roots = [Path(environ["WIRECONF_THIRD_PARTY"])] if environ.get("WIRECONF_THIRD_PARTY") else []
    roots.append((cwd or Path.cwd()) / ".." / "shared" / "third-party")
    return next((root / MODEL_PATH for root in roots if (root / MODEL_PATH).is_file()), None)


def _types(node: YAML) -> Iterator[dict[str, Any]]:
    """Every type definition in the model, the root first."""
    if isinstance(node, dict):
        if "typeName" in node and "properties" in node:
            yield node
        for value in node.values():
            yield from _types(value)
    elif isinstance(node, list):
        for value in node:
            yield from _types(value)


def _name(node: Mapping[str, Any]) -> str:
    type_name = node["typeName"]
    return f"{type_name.get('namespace') or ''}.{type_name['name']}".lstrip(".")


def _discriminator_value(child: Mapping[str, Any], key: str) -> str | None:
    own = next((p for p in child["properties"] if p["name"] == key), None)
    value = own.get("defaultValue") if own else None
    return value if isinstance(value, str) and value not in ("", "null") else None


class _Translator:
    """model.json's types → JSON Schema ``$defs``, one per type (the fullest definition of each name)."""

    def __init__(self, model: Mapping[str, Any]) -> None:
        self.types: dict[str, dict[str, Any]] = {}
        for node in _types(model):
            name = _name(node)
            size = len(node["properties"]) + len(node.get("childTypes") or [])
            known = self.types.get(name)
            if known is None or size > len(known["properties"]) + len(known.get("childTypes") or []):
                self.types[name] = node
        self.root = _name(model)

    def schema(self) -> dict[str, Any]:
        defs = {name: self._type(node) for name, node in self.types.items()}
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$ref": f"#/$defs/{self.root}",
            "$defs": defs,
        }

    def _ref(self, prop: Mapping[str, Any]) -> dict[str, Any]:
        """A property's type: a reference to a type of the model (named in full, or, where the model
        trims a repeated definition, by its name alone), else a scalar."""
        nested = prop.get("type")
        if isinstance(nested, dict) and "typeName" in nested:
            return {"$ref": f"#/$defs/{_name(nested)}"}
        name = _name(prop)
        if name not in self.types:
            short = prop["typeName"]["name"]
            name = next((n for n in self.types if n.rsplit(".", 1)[-1] == short), name)
        if name in self.types:
            return {"$ref": f"#/$defs/{name}"}
        return dict(_SCALARS.get(prop["typeName"]["name"], {}))

    def _property(self, prop: Mapping[str, Any]) -> dict[str, Any]:
        if prop.get("isAny"):
            return {}
        item = self._ref(prop)
        if prop.get("allowedValues") and not prop.get("isOpenEnum") and not prop.get("isCollection"):
            item = {**item, "enum": list(prop["allowedValues"])}
        if prop.get("isDict"):
            return {"type": "object"}
        if prop.get("isNamedCollection"):  # `items` applies to a list, `additionalProperties` to a mapping
            return {"type": ["array", "object"], "items": item, "additionalProperties": item}
        if prop.get("isCollection"):
            return {"type": "array", "items": item}
        return item

    def _object(self, properties: list[Mapping[str, Any]]) -> dict[str, Any]:
        shapes: dict[str, Any] = {}
        required = []
        for prop in properties:
            shape = self._property(prop)
            must = (
                not prop.get("isOptional")
                and not prop.get("hasExplicitDefault")
                and not prop.get("isCollection")
                and not prop.get("isDict")
            )
            if must:
                required.append(prop["name"])
            shapes[prop["name"]] = shape if must or not shape else {"anyOf": [{"type": "null"}, shape]}
        return {"type": "object", "properties": shapes, "required": required}

    def _scalars(self, node: Mapping[str, Any]) -> list[dict[str, Any]]:
        forms = [c.get("scalar") for c in node.get("coercions") or []]
        shorthand = node.get("entryShorthand")
        if isinstance(shorthand, Mapping) and shorthand.get("scalar"):
            forms.append(shorthand["scalar"])
        return [_SCALARS[f] for f in dict.fromkeys(forms) if _SCALARS.get(f)]

    def _type(self, node: Mapping[str, Any]) -> dict[str, Any]:
        base = self._object(node["properties"])
        key = node.get("discriminator")
        children = node.get("childTypes") or []
        if key and children:
            base["properties"].pop(key, None)  # checked below, against the family's values
            rules: list[dict[str, Any]] = []
            values: list[str] = []
            catch_all: dict[str, Any] | None = None
            for child in children:
                value = _discriminator_value(child, key)
                own = {p["name"]: p for p in node["properties"]}
                own.update({p["name"]: p for p in child["properties"] if p["name"] != key})
                shape = self._object(list(own.values()))
                if value == "*":
                    catch_all = shape
                elif value is not None:
                    values.append(value)
                    rules.append({"if": _has(key, {"const": value}), "then": shape})
            allowed = self._allowed(node, key)
            if catch_all is not None:
                rules.append({"if": _has(key, {"not": {"enum": values}}), "then": catch_all})
            elif allowed is not None:  # a closed enum: the base's values and the children's, no other
                rules.append({"properties": {key: {"enum": [*dict.fromkeys([*allowed, *values])]}}})
            base = {**base, "allOf": rules}
        scalars = self._scalars(node)
        return {"anyOf": [base, *scalars]} if scalars else base

    @staticmethod
    def _allowed(node: Mapping[str, Any], key: str) -> list[str] | None:
        """The values the base allows its discriminator; ``None`` for an open enum (any value)."""
        prop = next((p for p in node["properties"] if p["name"] == key), None)
        if prop is None or prop.get("isOpenEnum") or not prop.get("allowedValues"):
            return None
        return list(prop["allowedValues"])


def _has(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"properties": {key: value}, "required": [key]}


@cache
def agent_schema(path: Path) -> dict[str, Any]:
    """The JSON Schema of an agent, translated from the model at ``path``."""
    return _Translator(json.loads(path.read_text(encoding="utf-8"))).schema()


@dataclass(frozen=True)
class AgentProblem:
    """Where in the agent the model rejects it, and why."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


def _where(path: YAML) -> str:
    out = "agent"
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else f".{step}"
    return out


def check_agent(agent: YAML, schema: Mapping[str, Any]) -> list[AgentProblem]:
    """What the model rejects in ``agent``, each at its deepest, most relevant place."""
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for error in validator.iter_errors(agent):
        while error.context:  # inside an anyOf (a shorthand, a null): the branch that got furthest
            error = max(error.context, key=lambda e: (e.validator != "type", len(e.absolute_path)))
        problems.append(AgentProblem(_where(error.absolute_path), error.message))
    return problems


def agent_problems(corpus: Corpus, model: Path | None = None) -> list[str]:
    """Lint lines for the cases whose ``agent`` the spec authors' model rejects; none (and no check)
    when the model is not here."""
    path = model or model_file()
    if path is None:
        return []
    schema = agent_schema(path)
    out = []
    for case in corpus.cases():
        agent = case.raw.get("agent") if isinstance(case.raw, Mapping) else None
        if not isinstance(agent, Mapping):
            continue
        for problem in check_agent(_plain(agent), schema):
            out.append(
                f"{case.path}:{case.line_of('agent')}: {case.id}: the spec authors' model of an agent "
                f"({MODEL_PATH}) rejects {problem}; a runtime's loader would refuse this input before "
                "§7/§8 apply: write the agent as the model allows (docs/corpus.md)"
            )
    return out


def _plain(value: JSON) -> JSON:
    """The YAML value as JSON data (keys as strings, tuples as lists)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
