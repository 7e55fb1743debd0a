"""How the pinned provider contracts (``wireconf/providers/contracts/*.json``) are made from what each
provider publishes. Run by ``tools/provider_contracts.py``; ``tests/unit/test_provider_contracts.py``
rebuilds each one from its source, when the source is at hand, and requires the checked-in file to be
exactly what it builds.

Each contract is one JSON Schema (2020-12) document: the request schemas of the provider's apis and
everything they refer to, under ``$defs``, with ``x-contract`` (what it was made from, at which version)
and ``x-requests`` (api → the schema of its request body). Three sources, one per provider:

- **OpenAI**: OpenAI's own OpenAPI document (``openai/openai-openapi``, shared/third-party), the
  schemas of each endpoint's ``requestBody``, copied with their documented ``default`` and
  ``description``; OpenAPI's own words made JSON Schema (``nullable: true`` → ``null`` admitted,
  ``$recursiveRef`` → a ``$ref`` to its schema).
- **Anthropic** publishes no machine-readable schema outside its SDKs, which Stainless generates from
  Anthropic's OpenAPI document: the request types of the ``anthropic`` SDK at a pinned version
  (``ANTHROPIC_PIN``), turned into JSON Schema by pydantic. Pinned to the last release whose request
  type still has the sampling parameters the spec maps (``temperature``, ``top_p``, ``top_k``: from 1.0.0
  on the SDK has none of them), so that the contract is the one the spec's §7 is written against.
- **Google**: the Gemini API's protocol buffers, as Google's generated client
  ``google-ai-generativelanguage`` (pinned: ``GOOGLE_PINS``) carries them, in the proto3 JSON
  mapping its REST endpoint parses (https://protobuf.dev/programming-guides/json/): each field under
  its JSON name and its proto name, enums by name or number (and by the name in lower case, as Google's
  own REST examples send them: ``"parameters": {"type": "object", "properties": {"location": {"type":
  "string"}}}`` in https://ai.google.dev/gemini-api/docs/function-calling and the Gemini cookbook's
  ``quickstarts/rest/Function_calling_REST.ipynb``), 64-bit integers as numbers or strings,
  ``null`` for any field (its default), a field documented ``Required.`` required; a field without
  presence documents its proto3 default, a repeated field the empty list.

Every object a contract declares is closed (``unevaluatedProperties: false``; a free-form map declares
its own ``additionalProperties``): the providers answer 400 to a parameter they do not define
(OpenAI's ``Unrecognized request argument supplied``, Google's ``Unknown name ... Cannot find field``,
Anthropic's ``Extra inputs are not permitted``). That is the one thing added to what they publish, but
for the **corrections** (``OPENAI_CORRECTIONS``): where a published source contradicts what the live
API does, as shown by the provider's own client and its own 400 messages, one small named change of
the schemas involved, each with its sources, listed in the contract's ``x-contract.corrections``.
"""

from __future__ import annotations

import copy
import importlib
import json
import re
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wireconf.core.errors import WireconfError
from wireconf.core.untyped import JSON

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

OPENAI_DOCUMENT = "openai-openapi-f85dbe22/openapi.yaml"
"""OpenAI's OpenAPI document, under ``WIRECONF_THIRD_PARTY`` (shared/third-party)."""
OPENAI_SOURCE = "openai/openai-openapi@f85dbe223d40e1a31cba812ab2d755c7e98a92a3 openapi.yaml"
OPENAI_PATHS = {
    "openai.chat": "/chat/completions",
    "openai.responses": "/responses",
    "openai.embeddings": "/embeddings",
    "openai.images": "/images/generations",
}
"""Each OpenAI api's endpoint: its request schema is the document's ``requestBody`` there."""

ANTHROPIC_PIN = "anthropic==0.125.0"
ANTHROPIC_REQUESTS = {
    "MessageCreateParamsNonStreaming": "anthropic.types.message_create_params",
    "MessageCreateParamsStreaming": "anthropic.types.message_create_params",
}

GOOGLE_PINS = (
    "google-ai-generativelanguage==0.12.1",
    "proto-plus==1.29.0",
    "protobuf==7.36.2",
    "googleapis-common-protos==1.76.0",
)
GOOGLE_PACKAGE = "google.ai.generativelanguage_v1beta"
GOOGLE_REQUEST = "GenerateContentRequest"
GOOGLE_METHOD = "generateContent"


class ContractBuildError(WireconfError):
    """A source that cannot make a contract (another version than the pin, a schema it lacks)."""


# --- shared: refs, closing objects ---------------------------------------------------------------


_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
_ONE = (
    "items",
    "additionalProperties",
    "unevaluatedProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
)
_MANY = ("allOf", "anyOf", "oneOf", "prefixItems")


def schemas_in(node: JSON) -> Iterator[dict[str, Any]]:
    """Every schema in ``node``, itself included, read as JSON Schema: the values of ``properties``
    are schemas, the keys of ``properties`` and the values of ``default`` or ``enum`` are not."""
    if not isinstance(node, dict):
        return
    yield node
    for key, value in node.items():
        if key in _MAPS and isinstance(value, dict):
            for inner in value.values():
                yield from schemas_in(inner)
        elif key in _ONE:
            yield from schemas_in(value)
        elif key in _MANY and isinstance(value, list):
            for inner in value:
                yield from schemas_in(inner)


def _refs(node: JSON, prefix: str) -> set[str]:
    return {
        n["$ref"][len(prefix) :]
        for n in schemas_in(node)
        if isinstance(n.get("$ref"), str) and n["$ref"].startswith(prefix)
    }


def _closure(roots: list[str], schemas: dict[str, Any], prefix: str) -> list[str]:
    """The names of ``roots`` and every schema they refer to, sorted."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in schemas:
            raise ContractBuildError(f"the source has no schema {name!r}")
        seen.add(name)
        todo += sorted(_refs(schemas[name], prefix) - seen)
    return sorted(seen)


def close_objects(defs: dict[str, Any]) -> None:
    """Every object schema that declares ``properties`` (or composes them with ``allOf``) and says
    nothing of other keys gets ``unevaluatedProperties: false``. The parts of an ``allOf`` stay open,
    and so does a named schema used as one (transitively): a part knows only its own keys, so the
    composition is closed instead."""
    every = [n for d in defs.values() for n in schemas_in(d)]
    parts = {id(m) for n in every for m in n.get("allOf", [])}
    part_names = {m["$ref"].rsplit("/", 1)[1] for n in every for m in n.get("allOf", []) if "$ref" in m}
    todo = list(part_names)
    while todo:
        for member in defs[todo.pop()].get("allOf", []):
            name = member.get("$ref", "/").rsplit("/", 1)[1]
            if name and name not in part_names:
                part_names.add(name)
                todo.append(name)
    skip = parts | {id(defs[name]) for name in part_names}
    for node in every:
        if id(node) in skip or ("properties" not in node and "allOf" not in node):
            continue
        if any(k in node for k in ("additionalProperties", "patternProperties", "unevaluatedProperties")):
            continue
        members = node.get("allOf", [])
        if "properties" not in node and not any("$ref" in m or "properties" in m for m in members):
            continue  # an allOf of constraints only (``required``), not of objects
        node["unevaluatedProperties"] = False


def unions_as_any_of(defs: dict[str, Any]) -> None:
    """``oneOf`` read as ``anyOf``: the providers' documents write their unions ``oneOf`` although the
    members overlap (OpenAI's ``EasyInputMessage`` and ``InputMessage`` both describe ``{"role": "user",
    "content": [...]}``), and the provider accepts a value that any member describes; JSON Schema's
    ``oneOf`` would refuse it for matching two."""
    for node in [n for d in defs.values() for n in schemas_in(d)]:
        if "oneOf" not in node:
            continue
        members = node.pop("oneOf")
        if "anyOf" in node:
            node.setdefault("allOf", []).append({"anyOf": members})
        else:
            node["anyOf"] = members


def _document(
    provider: str, source: str, version: str, requests: dict[str, Any], defs: dict[str, Any]
) -> dict[str, Any]:
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": f"urn:wireconf:contract:{provider}",
        "x-contract": {"provider": provider, "source": source, "version": version},
        "x-requests": requests,
        "$defs": defs,
    }


# --- OpenAI: the OpenAPI document ------------------------------------------------------------------


def _openapi_to_json_schema(node: JSON, name: str) -> JSON:
    """OpenAPI's words made JSON Schema: ``nullable: true`` admits ``null``; ``$recursiveRef: "#"``
    (inside schema ``name``) is a ``$ref`` to it; refs point into ``$defs``."""
    if isinstance(node, list):
        return [_openapi_to_json_schema(v, name) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$recursiveAnchor":
            continue
        if key == "$recursiveRef":
            out["$ref"] = f"#/$defs/{name}"
        elif key == "$ref" and isinstance(value, str):
            out["$ref"] = value.replace("#/components/schemas/", "#/$defs/")
        elif key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {k: _openapi_to_json_schema(v, name) for k, v in value.items()}
        else:
            out[key] = _openapi_to_json_schema(value, name)
    if out.pop("nullable", False) is True:
        kind = out.get("type")
        if isinstance(kind, str | list):
            out["type"] = [*([kind] if isinstance(kind, str) else kind), "null"]
            if isinstance(out.get("enum"), list) and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        else:
            keep: dict[str, Any] = {
                k: out.pop(k) for k in ("description", "default", "deprecated", "title") if k in out
            }
            out = {"anyOf": [out, {"type": "null"}], **keep}
    return out


ASSISTANT_OUTPUT_SOURCES = (
    "openai/codex codex-rs/protocol/src/models.rs (at 001cb8e2): OpenAI's own client sends a previous"
    " assistant turn as ResponseItem::Message {role, content: Vec<ContentItem>} (no id, no status), its text"
    ' as ContentItem::OutputText { text }, serialised {"type": "output_text", "text": ...}: no annotations,'
    " no logprobs; codex-rs/core/src/client_common.rs (same commit): a turn's request input is those items",
    "https://community.openai.com/t/responses-api-endpoint-reference-documentation-errors-and-issues/1140994:"
    ' the API Playground sends {"role": "assistant", "content": [{"type": "output_text", "text": ...}]}',
    "the API's 400 to an input_text part in an assistant message: \"Invalid value: 'input_text'. Supported"
    " values are: 'output_text' and 'refusal'.\" (param input[N].content[0]), quoted by its users, e.g."
    " https://dev.to/flarecanary/openai-responses-api-started-rejecting-inputtext-with-no-warning-heres-"
    "the-fix-and-why-it-keeps-2l49 (since 2025-10-21)",
    "BerriAI/litellm#35213: OpenAI's public API takes output_text without annotations (a stricter"
    " Azure-style validator does not); langchain-ai/langchain#32557: the refusal of that shape came from"
    " vLLM, not OpenAI",
)
"""Where ``assistant_output_text_in_input`` comes from. Against it: openapi.yaml at f85dbe22 (an assistant
``EasyInputMessage`` takes ``InputContent``; ``OutputTextContent`` requires ``annotations`` and
``logprobs``) and openai-python's ``ResponseOutputTextParam`` (``annotations`` Required, ``logprobs`` not):
the published types, which the live API is stricter than on the part's type and looser than on its
keys."""


def assistant_output_text_in_input(defs: dict[str, Any]) -> None:
    """Correction: in Responses ``input``, an assistant message (``EasyInputMessage``) takes as content a
    string or a list of ``output_text`` parts (``type`` and ``text``; ``annotations`` and ``logprobs``
    optional) and ``refusal`` parts, and no input part: the live API refuses ``input_text`` there (its 400
    names ``output_text`` and ``refusal`` as the values it supports) and OpenAI's own client sends
    ``output_text`` without ``annotations``/``logprobs`` (``ASSISTANT_OUTPUT_SOURCES``). The other roles
    keep the document's content (a string or ``InputMessageContentList``); the output message item
    (``OutputMessage``, with ``id`` and ``status``) is unchanged. One message schema, its content chosen
    by its role (``if``/``then``/``else``), so that a refused role or part is reported against the
    document's own list of roles."""
    easy = defs.get("EasyInputMessage", {})
    content = easy.get("properties", {}).get("content", {})
    roles = easy.get("properties", {}).get("role", {}).get("enum", [])
    if "assistant" not in roles or "anyOf" not in content or "OutputTextContent" not in defs:
        raise ContractBuildError("assistant_output_text_in_input: the document no longer has its schemas")
    text = copy.deepcopy(defs["OutputTextContent"])
    text["required"] = ["type", "text"]
    text["description"] = "A text output of the model, sent back in an assistant message (a correction)."
    text["x-correction"] = "assistant-output-text-in-input"
    defs["AssistantOutputTextContent"] = text
    defs["AssistantMessageContentList"] = {
        "type": "array",
        "title": "Assistant message content list",
        "description": "The parts of an assistant message sent back as input (a correction).",
        "x-correction": "assistant-output-text-in-input",
        "items": {
            "anyOf": [{"$ref": "#/$defs/AssistantOutputTextContent"}, {"$ref": "#/$defs/RefusalContent"}]
        },
    }
    text_input = next(m for m in content["anyOf"] if m.get("type") == "string")
    assistant = {"anyOf": [text_input, {"$ref": "#/$defs/AssistantMessageContentList"}]}
    others = {"anyOf": content.pop("anyOf")}
    content["description"] += "(Its parts by role: allOf, a correction.)\n"
    easy["allOf"] = [
        *easy.get("allOf", []),
        {
            "if": {"properties": {"role": {"const": "assistant"}}, "required": ["role"]},
            "then": {"properties": {"content": assistant}},
            "else": {"properties": {"content": others}},
            "x-correction": "assistant-output-text-in-input",
        },
    ]


OPENAI_CORRECTIONS: dict[str, tuple[Callable[[dict[str, Any]], None], tuple[str, ...]]] = {
    "assistant-output-text-in-input": (assistant_output_text_in_input, ASSISTANT_OUTPUT_SOURCES),
}
"""Each correction of OpenAI's document: its name → (the change, its sources). Applied in this order to
the contract's JSON Schema (after its unions and objects are read as such, so that what a correction
writes is JSON Schema as it stands)."""


def openai_contract(document: Path) -> dict[str, Any]:
    """The contract of OpenAI's apis from its OpenAPI document (``OPENAI_DOCUMENT``)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with document.open(encoding="utf-8") as f:
        doc = yaml.load(f, Loader=loader)
    schemas = doc["components"]["schemas"]
    requests: dict[str, str] = {}
    for api, path in OPENAI_PATHS.items():
        ref = doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        requests[api] = ref.rsplit("/", 1)[1]
    names = _closure(sorted(set(requests.values())), schemas, "#/components/schemas/")
    defs = {name: _openapi_to_json_schema(copy.deepcopy(schemas[name]), name) for name in names}
    unions_as_any_of(defs)
    close_objects(defs)
    for correct, _ in OPENAI_CORRECTIONS.values():
        correct(defs)
    defs = dict(sorted(defs.items()))
    version = f"openai-openapi f85dbe22 (API {doc['info']['version']})"
    out = _document("openai", OPENAI_SOURCE, version, requests, defs)
    out["x-contract"]["corrections"] = {
        name: list(sources) for name, (_, sources) in OPENAI_CORRECTIONS.items()
    }
    return out


# --- Anthropic: the pinned SDK's request types -----------------------------------------------------


def _header_aliases(typed_dict: type) -> set[str]:
    """The fields of a request type that the SDK sends as headers (``PropertyInfo(alias="anthropic-…")``):
    not part of the body."""
    from typing import get_type_hints

    out = set()
    for field, hint in get_type_hints(typed_dict, include_extras=True).items():
        for meta in getattr(hint, "__metadata__", ()):
            alias = getattr(meta, "alias", None)
            if isinstance(alias, str) and alias.lower().startswith("anthropic-"):
                out.add(field)
    return out


def anthropic_contract() -> dict[str, Any]:
    """The contract of the Messages API from the installed ``anthropic``, which must be ``ANTHROPIC_PIN``."""
    import anthropic
    from pydantic import TypeAdapter

    wanted = ANTHROPIC_PIN.split("==")[1]
    if anthropic.__version__ != wanted:
        raise ContractBuildError(
            f"anthropic {anthropic.__version__} is installed; the contract pins {wanted}"
        )
    defs: dict[str, Any] = {}
    for name, module in ANTHROPIC_REQUESTS.items():
        typed_dict = getattr(importlib.import_module(module), name)
        schema = TypeAdapter(typed_dict).json_schema(ref_template="#/$defs/{model}")
        for key in _header_aliases(typed_dict):
            schema["properties"].pop(key, None)
            if key in schema.get("required", []):
                schema["required"].remove(key)
        for inner, value in schema.pop("$defs", {}).items():
            if inner in defs and defs[inner] != value:
                raise ContractBuildError(f"two request types define {inner!r} differently")
            defs[inner] = value
        defs[name] = schema
    unions_as_any_of(defs)
    close_objects(defs)
    version = f"anthropic {wanted} (SDK request types)"
    source = (
        f"{ANTHROPIC_PIN}: anthropic.types.message_create_params, generated from Anthropic's OpenAPI document"
    )
    requests = {"anthropic.messages": sorted(ANTHROPIC_REQUESTS)}
    return _document("anthropic", source, version, requests, dict(sorted(defs.items())))


# --- Google: the Gemini API's protocol buffers ------------------------------------------------------


def _google_module(name: str) -> types.ModuleType:
    """A submodule of ``GOOGLE_PACKAGE`` without running the package's ``__init__`` (which imports the
    gRPC client stack: only the messages are needed)."""
    import importlib.util

    parts = GOOGLE_PACKAGE.split(".")
    for i in range(1, len(parts) + 1):
        dotted = ".".join(parts[:i])
        if dotted in sys.modules:
            continue
        spec = importlib.util.find_spec(dotted) if i < len(parts) else None
        if spec is not None:
            importlib.import_module(dotted)
            continue
        parent = sys.modules[".".join(parts[: i - 1])]
        module = types.ModuleType(dotted)
        module.__path__ = [str(Path(p) / parts[i - 1]) for p in parent.__path__]
        sys.modules[dotted] = module
    return importlib.import_module(f"{GOOGLE_PACKAGE}.{name}")


_WELL_KNOWN: dict[str, dict[str, Any]] = {
    "google.protobuf.Struct": {"type": "object"},
    "google.protobuf.Value": {},
    "google.protobuf.ListValue": {"type": "array"},
    "google.protobuf.Timestamp": {"type": "string"},
    "google.protobuf.Duration": {"type": "string"},
    "google.protobuf.FieldMask": {"type": "string"},
    "google.protobuf.Empty": {"type": "object", "unevaluatedProperties": False},
}
"""The well-known types' own JSON forms (the proto3 JSON mapping)."""

_INTEGER = {"type": ["integer", "string"], "pattern": "^-?[0-9]+$"}
_NUMBER = {"anyOf": [{"type": "number"}, {"enum": ["NaN", "Infinity", "-Infinity"]}]}


def _field_docs(message: type) -> dict[str, str]:
    """A proto-plus message's field descriptions, from its docstring's ``Attributes:`` section (the
    proto's comments, as the API reference shows them)."""
    doc = message.__doc__ or ""
    _, _, attributes = doc.partition("Attributes:")
    out: dict[str, str] = {}
    for match in re.finditer(r"^ {8}(\w+) \([^\n]*\):\n((?: {12}.*\n|\s*\n)*)", attributes, re.M):
        text = " ".join(line.strip() for line in match.group(2).splitlines() if line.strip())
        out[match.group(1)] = text.split(" This field is a member of `oneof`")[0].strip()
    return out


def _path_fields(method: str) -> set[str]:
    """The request fields the REST route binds in its path (``/v1beta/{model=models/*}:generateContent``):
    not part of the body."""
    package = _google_module("types").__path__[0]
    rest = Path(package).parent / "services" / "generative_service" / "transports" / "rest_base.py"
    source = rest.read_text(encoding="utf-8")  # read, not imported: it imports the gRPC client stack
    uris = re.findall(r'"uri": "([^"]*:' + re.escape(method) + ')"', source)
    if not uris:
        raise ContractBuildError(f"no REST route of {method} in {rest}")
    return set(re.findall(r"\{(\w+)=", uris[0]))


def google_contract() -> dict[str, Any]:
    """The contract of ``generateContent`` from the installed ``google-ai-generativelanguage``, which
    must be the version ``GOOGLE_PINS`` names."""
    from importlib.metadata import version as installed

    pins = dict(pin.split("==") for pin in GOOGLE_PINS)
    for distribution, wanted in pins.items():
        if installed(distribution) != wanted:
            raise ContractBuildError(
                f"{distribution} {installed(distribution)} is installed; pinned {wanted}"
            )
    service = _google_module("types.generative_service")
    request = getattr(service, GOOGLE_REQUEST)
    defs: dict[str, Any] = {}
    classes: dict[str, type] = {}

    def message_class(descriptor: Any) -> type | None:
        if descriptor.full_name in classes:
            return classes[descriptor.full_name]
        module_name = descriptor.file.name.rsplit("/", 1)[1].removesuffix(".proto")
        try:
            module = _google_module(f"types.{module_name}")
        except ImportError:
            return None
        found: Any = module
        for part in descriptor.full_name.split(".")[len(descriptor.file.package.split(".")) :]:
            found = getattr(found, part, None)
        if isinstance(found, type):
            classes[descriptor.full_name] = found
            return found
        return None

    def enum_def(descriptor: Any) -> str:
        name = str(descriptor.full_name)
        if name not in defs:
            names = [v.name for v in descriptor.values]
            lower = [n.lower() for n in names if n.lower() != n]
            values = [*names, *lower, *(v.number for v in descriptor.values)]
            defs[name] = {"enum": values}
        return name

    def field_schema(field: Any) -> dict[str, Any]:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value = field.message_type.fields_by_name["value"]
            return {"type": ["object", "null"], "additionalProperties": single(value)}
        item = single(field)
        if field.is_repeated if hasattr(field, "is_repeated") else field.label == 3:
            return {"type": ["array", "null"], "items": item}
        return _nullable(item)

    def single(field: Any) -> dict[str, Any]:
        if field.message_type is not None:
            known = _WELL_KNOWN.get(field.message_type.full_name)
            return (
                dict(known) if known is not None else {"$ref": f"#/$defs/{message_def(field.message_type)}"}
            )
        if field.enum_type is not None:
            return {"$ref": f"#/$defs/{enum_def(field.enum_type)}"}
        scalar = field.type
        if scalar == 8:  # bool
            return {"type": "boolean"}
        if scalar in (9, 12):  # string, bytes
            return {"type": "string"}
        if scalar in (1, 2):  # double, float
            return dict(_NUMBER)
        return dict(_INTEGER)

    def message_def(descriptor: Any, exclude: frozenset[str] = frozenset()) -> str:
        name = str(descriptor.full_name)
        if name in defs:
            return name
        defs[name] = {}  # recursion guard
        cls = message_class(descriptor)
        docs = _field_docs(cls) if cls is not None else {}
        properties: dict[str, Any] = {}
        required: list[dict[str, Any]] = []
        for field in descriptor.fields:
            if field.name in exclude:
                continue
            schema = field_schema(field)
            description = docs.get(field.name, "")
            if description:
                schema["description"] = description
            default = _proto3_default(field)
            if default is not _NO_DEFAULT:
                schema["default"] = default
            spellings = dict.fromkeys((field.json_name, field.name))
            for spelling in spellings:
                properties[spelling] = schema
            if description.startswith("Required."):
                required.append(
                    {"required": [field.json_name]}
                    if len(spellings) == 1
                    else {"anyOf": [{"required": [s]} for s in spellings]}
                )
        node: dict[str, Any] = {"type": "object", "properties": properties, "x-proto": name}
        if required:
            node["allOf"] = required
        node["unevaluatedProperties"] = False
        defs[name] = node
        return name

    path_fields = frozenset(_path_fields(GOOGLE_METHOD))
    root = message_def(request.meta.pb.DESCRIPTOR, exclude=path_fields)
    version = f"{GOOGLE_PINS[0].replace('==', ' ')} ({GOOGLE_PACKAGE.rsplit('_', 1)[1]} protos)"
    source = (
        f"{GOOGLE_PINS[0]}: {GOOGLE_PACKAGE} (the Gemini API's protocol buffers), in the proto3 JSON mapping"
    )
    return _document("google", source, version, {"gemini.generate_content": root}, dict(sorted(defs.items())))


_NO_DEFAULT = object()


def _proto3_default(field: Any) -> Any:
    """What an absent field means, where proto3 says (https://protobuf.dev/programming-guides/json/):
    a repeated field is the empty list; a singular scalar or enum without presence its zero value; a
    field with presence (a message, ``optional``) has no default to state."""
    if field.is_repeated if hasattr(field, "is_repeated") else field.label == 3:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            return {}
        return []
    if field.has_presence or field.message_type is not None:
        return _NO_DEFAULT
    if field.enum_type is not None:
        return field.enum_type.values[0].name
    return {8: False, 9: "", 12: "", 1: 0, 2: 0}.get(field.type, 0)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` admitting ``null``: proto3 JSON reads ``null`` as the field's default."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]}
    if isinstance(kind, list):
        return {**schema, "type": [*kind, "null"]} if "null" not in kind else schema
    return {"anyOf": [schema, {"type": "null"}]}


BUILDERS: dict[str, Callable[..., dict[str, Any]]] = {
    "openai": openai_contract,
    "anthropic": anthropic_contract,
    "google": google_contract,
}


def dumps(contract: dict[str, Any]) -> str:
    """The checked-in form: stable, one key a line (reviewable diffs)."""
    return json.dumps(contract, indent=1, ensure_ascii=False) + "\n"
