"""Prompty's upstream conformance vectors (§7 wire, §8 process) → corpus cases.

The spec's authors publish vectors (``vectors.json``: contract, operation, and per vector its name,
input and expected output). Imported as cases, they make the corpus a superset of upstream's suite for
§7/§8, each case carrying its provenance (``vector: {name, commit}``; the file's header names the
repository and the path of the vectors file). Upstream's runners compare only the keys a vector lists,
so every imported case says ``expect_keys: listed``: such a case cannot see a key that must be absent
(``tools_null_when_empty`` passes a runtime that sends ``tools: []``), which is why imported cases cite
only the rules their listed keys check and the hand-written cases check absence exactly.

A vector becomes a case in the corpus's vocabulary:

- ``WireConformance.toRequest``: a ``wire`` case; ``model_id``/``provider``/``apiType``/``options``/
  ``tools``/``outputs`` make the agent, ``expected.request_body`` is the expectation;
- ``Processor.process``: a ``process`` case on the response as an inline body (parsed by the official
  SDK like every process case); ``has_outputs`` gives the agent one output property, as upstream's
  runners do (processors only ask whether outputs exist); ``expected.result`` is the expectation.

A vector that the case model cannot express, or that judges another contract (the processStream
vectors judge Prompty's streaming pipeline, not §8.6's processor), is left out with the reason
(``Skipped``), never half-imported. Which rules an imported case checks is the one thing written by
hand: re-importing keeps each case's ``rules`` (by vector name), and a new vector is written with
``rules: []``, which the loader refuses until someone cites the rules it checks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wireconf.core.errors import WireconfError
from wireconf.core.yaml_source import YamlSyntaxError, load_yaml_file
from wireconf.providers.registry import PROVIDERS

REPOSITORY = "microsoft/prompty"
UPSTREAM_PATH = "schema/tsp-output/.typra-generated/vectors.json"
FILE_NAME = "prompty-vectors.yaml"

DEFAULT_PROVIDER = "openai"
"""The provider of a vector that names none (Prompty's default)."""
_KINDS = {
    ("WireConformance", "toRequest"): "wire",
    ("Processor", "process"): "process",
}
_NOT_A_PROCESSOR = ("Processor", "processStream")
"""The processStream vectors judge Prompty's streaming pipeline (PromptyStream chunks of kind text or
failure, determinate and indeterminate failures, reconciliation, whether a completion is committed), a
contract that is not §8.6's process_stream (strings and ToolCalls yielded, a refusal raised): upstream
runs them through its pipeline, not its processor. They are left out, with that reason."""
STREAM_CONTRACT = (
    "it judges Prompty's streaming pipeline (PromptyStream chunks of kind text or failure, failure "
    "classification and reconciliation), not §8.6's process_stream, which yields strings and raises; "
    "upstream runs it through its pipeline, not its processor"
)
_OUTPUTS_PRESENT = [{"name": "dummy", "kind": "string"}]
"""The outputs an imported process case's agent has when the vector says ``has_outputs: true``."""


class VectorsError(WireconfError):
    """The vectors file cannot be read as Prompty's vectors."""


@dataclass(frozen=True)
class Skipped:
    name: str
    reason: str


@dataclass
class Imported:
    """What an import produced: case files by path (their text), skipped vectors, new cases to review."""

    files: dict[Path, str] = field(default_factory=dict)
    cases: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    without_rules: list[str] = field(default_factory=list)


def load_vectors(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise VectorsError(
            f"cannot read the vectors: {exc}",
            path=path,
            hint="give the vectors.json of a Prompty checkout (../shared/third-party/prompty-75e4d0e5/)",
        ) from exc
    vectors = data.get("vectors") if isinstance(data, dict) else None
    if not isinstance(vectors, list):
        raise VectorsError(
            "expected an object with a `vectors` list",
            path=path,
            hint='give Prompty\'s conformance vectors.json (its top level is {"vectors": [...]})',
        )
    return vectors


def api_of(provider: str | None, api_type: str | None) -> str | None:
    """The corpus api of a vector's provider and apiType (``None``: not one the corpus has), read from
    the provider records: the api of the provider named so (Prompty names providers as the records do)
    whose ``api_types`` list that apiType."""
    record = PROVIDERS.get(provider or DEFAULT_PROVIDER)
    if record is None:
        return None
    named = [api.name for api in record.apis if api.api_types is not None and api_type in api.api_types]
    return named[0] if named else None


def _model(input_: dict[str, Any], model_id: str) -> dict[str, Any]:
    model: dict[str, Any] = {"id": model_id}
    if input_.get("provider"):
        model["provider"] = input_["provider"]
    if input_.get("apiType"):
        model["apiType"] = input_["apiType"]
    if input_.get("options"):
        model["options"] = input_["options"]
    return model


def _wire_case(vector: dict[str, Any]) -> dict[str, Any]:
    input_ = vector["input"]
    agent: dict[str, Any] = {"model": _model(input_, input_["model_id"])}
    for key in ("tools", "outputs"):
        if input_.get(key):
            agent[key] = input_[key]
    return {
        "agent": agent,
        "messages": input_.get("messages") or [],
        "expect": vector["expected"]["request_body"],
    }


def _process_case(vector: dict[str, Any]) -> dict[str, Any]:
    input_ = vector["input"]
    agent: dict[str, Any] = {"model": _model(input_, "test")}
    if input_.get("has_outputs"):
        agent["outputs"] = _OUTPUTS_PRESENT
    return {"agent": agent, "response": {"body": input_["response"]}, "expect": vector["expected"]["result"]}


def case_of(entry: dict[str, Any], commit: str) -> tuple[str, str, dict[str, Any]] | Skipped | None:
    """``(kind, api, case)`` for a §7/§8 vector, a ``Skipped`` with the reason, or ``None`` for the
    vectors of other sections (load, render, parse, agent loop, discovery)."""
    contract = (str(entry.get("contract")), str(entry.get("operation")))
    if contract == _NOT_A_PROCESSOR:
        return Skipped(entry["vector"]["name"], STREAM_CONTRACT)
    kind = _KINDS.get(contract)
    if kind is None:
        return None
    vector = entry["vector"]
    name = vector["name"]
    input_ = vector.get("input") or {}
    api = api_of(input_.get("provider"), input_.get("apiType"))
    if api is None:
        where = f"provider {input_.get('provider')!r} / apiType {input_.get('apiType')!r}"
        return Skipped(name, f"{where} is no api of the corpus")
    built = {"wire": _wire_case, "process": _process_case}[kind](vector)
    case: dict[str, Any] = {
        "id": f"{kind}.{api}.vector.{name}",
        "rules": [],
        "kind": kind,
        "api": api,
        "description": vector.get("description") or name,
        "vector": {"name": name, "commit": commit},
        **({"expect_keys": "listed"} if "expect" in built else {}),
        **built,
    }
    return kind, api, case


def _kept_rules(path: Path) -> dict[str, list[str]]:
    """The rules each vector's case cites in an earlier import (by vector name)."""
    if not path.is_file():
        return {}
    try:
        raw = load_yaml_file(path)
    except YamlSyntaxError as exc:
        raise VectorsError(
            f"cannot keep its rules: {exc}",
            path=path,
            line=exc.line,
            hint="fix the YAML of the existing vectors file, or delete it to import afresh",
        ) from exc
    kept: dict[str, list[str]] = {}
    for case in (raw or {}).get("cases") or []:
        name = (case.get("vector") or {}).get("name") if isinstance(case, dict) else None
        if name and isinstance(case.get("rules"), list):
            kept[name] = [str(rule) for rule in case["rules"]]
    return kept


def _header(commit: str, kind: str, api: str) -> str:
    lines = [
        f"# Prompty's upstream conformance vectors for `{kind}` on {api}, imported by",
        f"# `wireconf import-vectors` from {REPOSITORY} {UPSTREAM_PATH} at {commit}.",
        "# Generated: re-import rather than edit. Only `rules` is written by hand (re-importing keeps it).",
        "# `expect_keys: listed`: as upstream's runners do, only the keys a vector lists are compared.",
    ]
    return "\n".join(lines) + "\n"


class _Dumper(yaml.SafeDumper):
    """Sequences indented under their key, as the hand-written case files have them."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


def _dump(cases: list[dict[str, Any]]) -> str:
    """Block style for the structure, flow style for collections of scalars, as hand-written cases."""
    return yaml.dump(
        {"cases": cases},
        Dumper=_Dumper,
        default_flow_style=None,
        sort_keys=False,
        allow_unicode=True,
        width=110,
    )


def import_vectors(vectors_file: Path, corpus_root: Path, commit: str) -> Imported:
    """The case files the vectors make under ``corpus_root`` (``<kind>/<api>/prompty-vectors.yaml``),
    with the rules of an earlier import kept. Nothing is written here: the caller writes ``files``."""
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    result = Imported()
    for entry in load_vectors(vectors_file):
        made = case_of(entry, commit)
        if made is None:
            continue
        if isinstance(made, Skipped):
            result.skipped.append(made)
            continue
        kind, api, case = made
        grouped.setdefault((kind, api), []).append(case)
    for (kind, api), cases in sorted(grouped.items()):
        path = corpus_root / kind / api / FILE_NAME
        kept = _kept_rules(path)
        for case in sorted(cases, key=lambda c: c["vector"]["name"]):
            case["rules"] = kept.get(case["vector"]["name"], [])
            if not case["rules"]:
                result.without_rules.append(case["id"])
        text = _header(commit, kind, api) + _dump(sorted(cases, key=lambda c: c["id"]))
        result.files[path] = text
        result.cases += len(cases)
    return result


def write(imported: Imported) -> list[Path]:
    """Write the files (each atomically: a reader never sees half a file)."""
    from wireconf.cassettes.atomic import write_atomic

    for path, text in imported.files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text)
    return list(imported.files)
