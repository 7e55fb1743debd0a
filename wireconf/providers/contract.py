"""The provider contracts pinned in this repository: what each provider accepts as a request body.

A contract is a JSON Schema document per provider (``contracts/<provider>.json``, made by
``tools/provider_contracts.py`` from what the provider publishes: ``contract_build`` says how and
from which version), checked with ``jsonschema``. Verdicts read these files and nothing else: never the
SDK installed beside a runtime, whose request types change from one release to the next (``anthropic``
2.x has no ``temperature``), so the same request gets the same verdict in every environment.

``problems(api, body)`` is what the contract rejects in a request body, each with its path and the
contract's schema that says so; ``versions()`` the contracts that judge, for every report's header.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from wireconf.core.untyped import JSON
from wireconf.providers.equivalence import Equivalence

CONTRACTS_DIR = Path(__file__).parent / "contracts"
NO_MEMBER = "no member of the union accepts it"


@dataclass(frozen=True)
class Contract:
    """One provider's pinned contract: where it comes from, and its schemas."""

    provider: str
    source: str
    version: str
    requests: Mapping[str, Any]
    """api → the name of its request body's schema under ``$defs`` (a list: one per variant, the api's
    record chooses: ``Api.request_type``)."""
    document: Mapping[str, Any]

    @property
    def label(self) -> str:
        return f"{self.provider} contract ({self.version})"

    def schema(self, name: str) -> Mapping[str, Any]:
        return dict(self.document["$defs"][name])


@dataclass(frozen=True)
class Problem:
    """One thing a contract rejects: where (``$.messages[0].content[0].input_audio.format``), what, and
    the schema that said so."""

    path: str
    message: str
    schema: str
    best: tuple[str, str, str] | None = field(default=None, compare=False)
    """Where no member of a union accepts the value: the one constraint of the member that matches best
    (``_best``), as its place, its reason in a single constraint's words and the JSON type of the value
    no member accepts (``("$.input[1].content[0].type", "'output_text' is not one of ['input_text']",
    "object")``), which a reproduction checks; the reason itself still lists every member's."""

    @property
    def union(self) -> bool:
        """Whether no member of a union took the value (the reason lists each member's refusal)."""
        return self.message.startswith(NO_MEMBER)

    @property
    def text(self) -> str:
        return f"{self.path}: the provider's contract rejects this ({self.schema}): {self.message}"


@functools.cache
def load(provider: str) -> Contract | None:
    """``provider``'s pinned contract, or ``None`` when none is checked in (an extension's provider)."""
    path = CONTRACTS_DIR / f"{provider}.json"
    if not path.is_file():
        return None
    document = json.loads(path.read_text(encoding="utf-8"))
    meta = document["x-contract"]
    return Contract(provider, meta["source"], meta["version"], document["x-requests"], document)


@functools.cache
def _validator(provider: str, name: str) -> Any:
    """A validator of the schema ``name`` of ``provider``'s contract, built once per process."""
    from jsonschema import Draft202012Validator
    from referencing import Registry, Resource

    contract = load(provider)
    assert contract is not None
    document = dict(contract.document)
    registry: Registry[Any] = Registry().with_resource(document["$id"], Resource.from_contents(document))
    return Draft202012Validator({"$ref": f"{document['$id']}#/$defs/{name}"}, registry=registry)


def _shown(parts: Any) -> str:
    out = "$"
    for part in parts:
        out += (
            f"[{part}]"
            if isinstance(part, int)
            else (f".{part}" if str(part).isidentifier() else f"[{part!r}]")
        )
    return out


def _depth(error: Any) -> int:
    """How far into the data an error is: a missing or an unknown key counts as the key's place."""
    keyed = error.validator in ("required", "unevaluatedProperties", "additionalProperties")
    return len(error.absolute_path) + (1 if keyed else 0)


def _tag_mismatch(error: Any) -> bool:
    """A union member refused by its tag (``type`` is another constant): another variant, not a near
    miss."""
    return error.validator in ("enum", "const") and bool(error.path) and error.path[-1] == "type"


def _leaf(error: Any) -> Any:
    """Where a union (``anyOf``/``oneOf``) failed, the error of its member that came closest: not
    refused by its tag, got furthest into the data, with the fewest errors (jsonschema keeps every
    member's errors in ``context``), recursively; the union's own error when every member refuses the
    value's tag or none got past its place."""
    while error.context:
        by_member: dict[Any, list[Any]] = {}
        for inner in error.context:
            member = inner.relative_schema_path[0] if inner.relative_schema_path else 0
            by_member.setdefault(member, []).append(inner)

        own = len(error.absolute_path) + 1  # a member's own keys, not those deeper in its data

        def closeness(errors: list[Any], own: int = own) -> tuple[bool, int, int, int]:
            leaves = [_leaf(e) for e in errors]  # a member that is a union itself: how far it got
            tagged = any(_tag_mismatch(e) and len(e.absolute_path) == own for e in leaves)
            shallow = sum(1 for e in leaves if _depth(e) <= own)  # its own keys missing, unknown, wrong
            return (not tagged, -shallow, max(_depth(e) for e in leaves), -len(errors))

        # ties go to the first member and the first place in their own order: jsonschema yields some
        # errors in a set's order (additionalProperties), which changes from one process to the next
        best = max((by_member[m] for m in sorted(by_member, key=str)), key=closeness)
        untagged, _, reach, _ = closeness(best)
        if len(by_member) > 1 and (reach <= len(error.absolute_path) or not untagged):
            return error  # no member got past this place, or none has this tag: the union is the problem
        error = max(sorted(best, key=_place), key=lambda e: _depth(_leaf(e)))
    return error


def _place(error: Any) -> tuple[str, ...]:
    """An error's place in the data and in the schema, as text: an order that does not depend on the
    order jsonschema found it in."""
    return (*map(str, error.absolute_schema_path), "\0", *map(str, error.absolute_path))


def _wanted(error: Any) -> str:
    """What each member of a union that failed at its own place wanted (up to four)."""

    def messages(union: Any) -> list[str]:
        out: list[str] = []
        for inner in sorted(union.context or [], key=_place):
            leaf = _leaf(inner)
            out += messages(leaf) if leaf.validator in ("oneOf", "anyOf") and leaf.context else [leaf.message]
        return out

    said = list(dict.fromkeys(messages(error)))
    shown = " | ".join(said[:4]) + (f" | … {len(said) - 4} more" if len(said) > 4 else "")
    return f"{NO_MEMBER}: {shown}" if shown else NO_MEMBER


def _json_type(value: Any) -> str:
    """``value``'s JSON type, as JSON Schema names it."""
    if isinstance(value, bool) or value is None:
        return "boolean" if isinstance(value, bool) else "null"
    kinds = {str: "string", list: "array", dict: "object", int: "integer", float: "number"}
    return next((name for kind, name in kinds.items() if isinstance(value, kind)), "object")


def _member_rank(error: Any, defs: Mapping[str, Any]) -> tuple[bool, int, bool, int]:
    """How far the union member an error belongs to is from the value (less is closer): it wants
    another JSON type at the union's place, the value's keys it does not declare, it refuses the value's
    tag (``type``/``role``), how many errors it has."""
    union = error.parent
    member = error.relative_schema_path[0]
    errors = [e for e in union.context if e.relative_schema_path[0] == member]
    own = len(union.absolute_path)
    retyped = any(e.validator == "type" and len(e.absolute_path) == own for e in errors)
    value = union.instance
    declared = _declared(union.validator_value[member], defs) if isinstance(value, dict) else set()
    unknown = sum(1 for key in value if key not in declared) if isinstance(value, dict) else 0
    tag = any(
        e.validator in ("enum", "const")
        and len(e.absolute_path) == own + 1
        and e.absolute_path[-1] in ("type", "role")
        for e in errors
    )
    return (retyped, unknown, tag, len(errors))


def _best(union: Any, defs: Mapping[str, Any]) -> Any:
    """Where no member of a union accepts a value: the one constraint of the member a reader would pick.
    ``jsonschema.exceptions.best_match`` ranks a union's errors by jsonschema's relevance (``by_relevance``,
    the deeper first) but stops at the union when two of them tie, as
    they do for a value every member refuses by its tag; so the members are ranked first by how near each
    is to the value (``_member_rank``), then by jsonschema's relevance, then by place (a stable order),
    and a member that is a union itself is entered the same way."""
    from jsonschema.exceptions import best_match, by_relevance

    relevance = by_relevance()

    def key(error: Any) -> tuple[Any, ...]:
        rank = _member_rank(error, defs) if error.parent is not None else ()
        ranked: Any = relevance(error)  # a tuple; its place as text: a key and an index do not compare
        deeper, _, *kinds = ranked
        return (rank, deeper, [str(part) for part in error.path], *kinds, _place(error))

    # best_match descends from the union into the least of its errors by ``key``, into a nested
    # union's the same way; ``_place`` leaves no tie, so it never stops at a union
    return best_match([union], key=key)


def _declared(schema: Any, defs: Mapping[str, Any], seen: frozenset[str] = frozenset()) -> set[str]:
    """The keys an object schema declares, with those of the schemas it is composed of."""
    if not isinstance(schema, Mapping):
        return set()
    keys = set(schema.get("properties", {}))
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.rsplit("/", 1)[-1] in defs and ref not in seen:
        keys |= _declared(defs[ref.rsplit("/", 1)[-1]], defs, seen | {ref})
    for word in ("allOf", "anyOf", "oneOf"):
        for member in schema.get(word, []):
            keys |= _declared(member, defs, seen)
    return keys


def _problems_of(error: Any, name: str, defs: Mapping[str, Any]) -> list[Problem]:
    leaf = _leaf(error)
    path = list(leaf.absolute_path)
    if leaf.validator in ("unevaluatedProperties", "additionalProperties") and isinstance(
        leaf.instance, dict
    ):
        # a key is "unevaluated" also when its value failed (its annotations are dropped): only the keys
        # the schema does not declare at all are unknown; the failures of the others are their own errors
        declared = _declared(leaf.schema, defs)
        unknown = [k for k in leaf.instance if k not in declared]
        return [Problem(_shown([*path, k]), "the contract has no such key", name) for k in unknown]
    if leaf.validator == "required":
        missing = [
            k for k in leaf.validator_value if isinstance(leaf.instance, dict) and k not in leaf.instance
        ]
        if missing:
            return [
                Problem(_shown([*path, k]), "required by the contract, and missing", name) for k in missing
            ]
    if leaf.validator in ("oneOf", "anyOf"):
        best = _problems_of(_best(leaf, defs), name, defs) if leaf.context else []
        one = (
            (best[0].path, best[0].message, _json_type(leaf.instance)) if best and not best[0].best else None
        )
        return [Problem(_shown(path), _wanted(leaf), name, one)]
    message = leaf.message if len(leaf.message) <= 300 else leaf.message[:297] + "..."
    return [Problem(_shown(path), message, name)]


def request_schema(api: str, body: Mapping[str, Any]) -> tuple[str, str] | None:
    """(provider, schema name) that the request ``body`` of ``api`` is checked against, or ``None``: its
    provider has no contract for it. Where the contract lists several (a streaming request and
    another), the api's record chooses (``Api.request_type``)."""
    from wireconf.providers.registry import APIS, PROVIDER_OF

    record = APIS.get(api)
    if record is None:
        return None
    provider = PROVIDER_OF[api].name
    contract = load(provider)
    listed = contract.requests.get(api) if contract is not None else None
    if isinstance(listed, str):
        return provider, listed
    if isinstance(listed, list) and record.request_type is not None:
        name = record.request_type(body)
        return (provider, name) if name in listed else None
    return None


def problems(api: str, body: JSON) -> list[Problem]:
    """What ``api``'s pinned contract rejects in the request ``body`` (``[]``: it accepts it, or the api
    has no contract)."""
    if not isinstance(body, Mapping):
        return []
    found = request_schema(api, body)
    if found is None:
        return []
    provider, name = found
    out: list[Problem] = []
    contract = load(provider)
    assert contract is not None  # request_schema found it
    defs = contract.document["$defs"]
    for error in _validator(provider, name).iter_errors(body):
        out += _problems_of(error, name, defs)
    return sorted(dict.fromkeys(out), key=lambda p: p.path)


def warm(api: str) -> None:
    """Build ``api``'s validators now (once per process), outside any case's time limit."""
    for variant in ({}, {"stream": True}):
        found = request_schema(api, variant)
        if found is not None:
            _validator(*found)


def versions(apis: list[str] | None = None) -> dict[str, str]:
    """provider → its contract's version, for the providers of ``apis`` (every provider when ``None``)."""
    from wireconf.providers.registry import PROVIDER_OF, PROVIDERS

    names = (
        list(PROVIDERS)
        if apis is None
        else list(dict.fromkeys(PROVIDER_OF[a].name for a in apis if a in PROVIDER_OF))
    )
    out = {}
    for name in names:
        contract = load(name)
        if contract is not None:
            out[name] = contract.version
    return out


# --- equivalences the contract states ------------------------------------------------------------


@dataclass
class _Declared:
    """One declaration of a field at a generic path: the schema that declares it, whether it requires
    it, the defaults it documents, whether it admits ``null``, and its description."""

    owner: str
    name: str
    required: bool
    defaults: list[Any]
    nullable: bool
    description: str


def _target(node: Any, defs: Mapping[str, Any]) -> tuple[str | None, Any]:
    ref = node.get("$ref") if isinstance(node, Mapping) else None
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        return name, defs[name]
    return None, None


def _stated(node: Any, defs: Mapping[str, Any], seen: frozenset[str] = frozenset()) -> tuple[list[Any], bool]:
    """The defaults a field's schema states, and whether it admits ``null``: its own words, those of the
    schema it refers to and of its union's members (never of the fields inside it)."""
    if not isinstance(node, Mapping):
        return [], False
    defaults = [node["default"]] if "default" in node else []
    kind = node.get("type")
    nullable = kind == "null" or (isinstance(kind, list) and "null" in kind)
    name, target = _target(node, defs)
    if name is not None and name not in seen:
        more, null = _stated(target, defs, seen | {name})
        defaults += more
        nullable = nullable or null
    for word in ("anyOf", "allOf"):
        for member in node.get(word, []):
            more, null = _stated(member, defs, seen)
            defaults += more
            nullable = nullable or (null and word == "anyOf")
    return defaults, nullable


def _required(node: Mapping[str, Any]) -> set[str]:
    """The keys ``node`` requires, in its own ``required`` or in the constraints it composes."""
    out = set(node.get("required", []))
    for word in ("allOf", "anyOf"):
        for member in node.get(word, []):
            if isinstance(member, Mapping) and "properties" not in member and "$ref" not in member:
                out |= _required(member)
    return out


def _declarations(
    node: Any,
    path: str,
    owner: str,
    defs: Mapping[str, Any],
    out: dict[str, list[_Declared]],
    seen: frozenset[str],
) -> None:
    if not isinstance(node, Mapping):
        return
    name, target = _target(node, defs)
    if name is not None and name not in seen:
        _declarations(target, path, name, defs, out, seen | {name})
    for word in ("anyOf", "allOf"):
        for member in node.get(word, []):
            _declarations(member, path, owner, defs, out, seen)
    if "items" in node:
        _declarations(node["items"], f"{path}[*]", owner, defs, out, seen)
    properties = node.get("properties", {})
    required = _required(node)
    for key, schema in properties.items():
        if "_" in key and _camel(key) in properties and properties[_camel(key)] == schema:
            continue  # the other spelling of a proto field: the same declaration
        defaults, nullable = _stated(schema, defs)
        description = str(schema.get("description", "")) if isinstance(schema, Mapping) else ""
        child = f"{path}.{key}"
        out.setdefault(child, []).append(
            _Declared(owner, key, key in required or _camel(key) in required, defaults, nullable, description)
        )
        _declarations(schema, child, owner, defs, out, seen)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _slug(path: str) -> str:
    """``$.tools[*].function.strict`` → ``tools-function-strict``; ``stopSequences`` → ``stop-sequences``."""
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", path.removeprefix("$.").replace("[*]", ""))
    return re.sub(r"[^a-z0-9]+", "-", words.lower()).strip("-")


def _first_sentence(text: str) -> str:
    flat = re.sub(r"^(Optional|Required)\.\s*", "", " ".join(text.split()))
    cut = re.search(r"(?<=[.!?])\s", flat)
    return flat[: cut.start()] if cut else flat


@functools.cache
def declarations(provider: str, api: str) -> dict[str, list[_Declared]]:
    """Every field ``provider``'s contract declares in ``api``'s request, by generic path
    (``$.messages[*].content``), each declaration with what it states (read once per process: do not
    change it)."""
    contract = load(provider)
    if contract is None or api not in contract.requests:
        return {}
    defs = contract.document["$defs"]
    roots = contract.requests[api]
    found: dict[str, list[_Declared]] = {}
    for root in [roots] if isinstance(roots, str) else roots:
        _declarations(defs[root], "$", root, defs, found, frozenset({root}))
    return found


def derived_equivalences(provider: str, api: str, *, nulls: bool = True) -> tuple[Equivalence, ...]:
    """The ``default`` and ``null`` equivalences ``provider``'s contract states for ``api``'s request:
    a field every optional declaration of which documents the same default (sent with it, or omitted:
    the same request), and an optional field every declaration of which admits ``null`` (sent as
    ``null``, or omitted). A field declared at one path by several union members counts only where they
    agree; a required declaration does not count (omitting it is no request the provider takes).
    ``nulls=False``: no ``null`` equivalences (the provider states that rule once for every field)."""
    contract = load(provider)
    if contract is None or api not in contract.requests:
        return ()
    out: list[Equivalence] = []
    for path, declared in sorted(declarations(provider, api).items()):
        optional = [d for d in declared if not d.required]
        if not optional:
            continue
        slug = _slug(path)
        first = optional[0]
        where = f"{contract.source}: {first.owner}.{first.name}"
        said = _first_sentence(first.description)
        values = {json.dumps(d.defaults[0], sort_keys=True) for d in optional if len(d.defaults) == 1}
        if len(values) == 1 and all(len(d.defaults) == 1 for d in optional):
            value = optional[0].defaults[0]
            quote = f"default: {json.dumps(value)}" + (f" ({said})" if said else "")
            if value is not None:
                out.append(Equivalence(f"{slug}-default", path, "default", where, quote, value=value))
            elif nulls:
                out.append(Equivalence(f"{slug}-null", path, "null", where, quote))
            if value is None:
                continue
        if nulls and all(d.nullable for d in optional):
            quote = "optional, and may be null (unset)" + (f" ({said})" if said else "")
            out.append(Equivalence(f"{slug}-null", path, "null", where, quote))
    seen: dict[str, int] = {}
    for i, equivalence in enumerate(out):  # two paths may read alike: the later ones get a number
        seen[equivalence.name] = seen.get(equivalence.name, 0) + 1
        if seen[equivalence.name] > 1:
            out[i] = replace(equivalence, name=f"{equivalence.name}-{seen[equivalence.name]}")
    return tuple(out)


# --- which versions judged ------------------------------------------------------------------------


def sdk_version(provider: str) -> str | None:
    """``openai 3.57.0``: the installed SDK that parses ``provider``'s recordings (its first
    distribution), or ``None`` when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    from wireconf.providers.registry import PROVIDERS

    record = PROVIDERS.get(provider)
    if record is None or not record.distributions:
        return None
    name = record.distributions[0]
    try:
        return f"{name} {version(name)}"
    except PackageNotFoundError:
        return None


def judged_by(api: str | None) -> dict[str, str] | None:
    """What judged a case of ``api``: its provider's pinned contract (every request checked against it)
    and the SDK that parsed the recordings (``None``: an api no provider record knows)."""
    from wireconf.providers.registry import PROVIDER_OF

    if api is None or api not in PROVIDER_OF:
        return None
    provider = PROVIDER_OF[api].name
    contract = load(provider)
    out = {"provider": provider}
    if contract is not None:
        out["contract"] = contract.version
    sdk = sdk_version(provider)
    if sdk is not None:
        out["sdk"] = sdk
    return out


def versions_line() -> str:
    """One line for a report's header: the contracts that judge requests, the SDKs that parse the
    recordings."""
    from wireconf.providers.registry import PROVIDERS

    contracts = ", ".join(f"{name}: {version}" for name, version in versions().items())
    sdks = ", ".join(v for v in (sdk_version(name) for name in PROVIDERS) if v)
    return f"provider contracts {contracts}; recordings parsed by {sdks}"
