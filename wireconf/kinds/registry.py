"""Every kind the harness knows: the built-in kind modules and installed extensions.

Each module listed in ``BUILTIN`` holds one ``KIND`` (a ``wireconf.kinds.kind.Kind``). A package outside
this repository adds a kind by exposing one under the entry-point group ``wireconf.kinds``: its cases
load, run through the plugin, the exec protocol and ``wireconf bless`` like any other, with no change
here. The union of the kinds' case models is a case file's ``cases:`` (``CASE_ADAPTER``).
"""

from __future__ import annotations

import functools
import importlib
import operator
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter

from wireconf.core.errors import ExtensionError
from wireconf.core.extensions import HINT, installed
from wireconf.corpus.loader import Corpus
from wireconf.kinds.kind import AdapterMethod, Kind
from wireconf.providers.registry import APIS

BUILTIN = (
    "wireconf.kinds.wire",
    "wireconf.kinds.process",
    "wireconf.kinds.stream",
    "wireconf.kinds.blocks",
    "wireconf.kinds.extract",
    "wireconf.kinds.convert",
    "wireconf.kinds.trace",
    "wireconf.kinds.e2e",
)
"""The built-in kind modules, in the order the kinds are listed."""

ENTRY_POINT_GROUP = "wireconf.kinds"


def _load() -> dict[str, Kind[Any, Any]]:
    kinds: dict[str, Kind[Any, Any]] = {}
    methods: set[str] = set()
    builtin = [importlib.import_module(name).KIND for name in BUILTIN]
    # an isinstance check against the abstract base is what installed() does with it
    for kind in [*builtin, *installed(ENTRY_POINT_GROUP, Kind)]:  # type: ignore[type-abstract]
        if kind.name in kinds:
            raise ExtensionError(f"two kinds are named {kind.name!r}", hint=HINT)
        own = [m.name for m in (kind.method, *kind.optional_methods) if m is not None]
        clash = methods.intersection(own)
        if clash:
            raise ExtensionError(
                f"kind {kind.name!r}: another kind already calls {', '.join(clash)}", hint=HINT
            )
        methods.update(own)
        kinds[kind.name] = kind
    return kinds


KINDS: dict[str, Kind[Any, Any]] = _load()
"""Kind name → kind."""

KIND_NAMES: tuple[str, ...] = tuple(KINDS)

METHOD_FOR_KIND: dict[str, str] = {name: k.method.name for name, k in KINDS.items() if k.method is not None}
"""The adapter method the harness calls for each kind (a kind without one observes the others)."""

OPTIONAL_METHODS: tuple[AdapterMethod, ...] = tuple(m for k in KINDS.values() for m in k.optional_methods)

METHODS: dict[str, tuple[Kind[Any, Any], AdapterMethod]] = {
    method.name: (kind, method)
    for kind in KINDS.values()
    for method in (kind.method, *kind.optional_methods)
    if method is not None
}
"""Every method of the adapter contract → the kind that calls it, and how."""


def stream_without_stream(kind: str, api: str) -> str | None:
    """Why ``<kind>:<api>`` cannot exist (a kind of streams on an api that has no stream), or ``None``;
    each caller adds what to do (a capability: stop declaring it; a case: write it as another kind)."""
    if kind not in KINDS or api not in APIS or not KINDS[kind].streams_only or APIS[api].streams:
        return None
    return (
        f"{api} has no streaming call (its API answers with one response), so there is no {kind} case for it"
    )


def _has_streams(case: Any) -> Any:
    """A case of a kind of streams on an api without one is refused where it is written (a pydantic
    validator: the loader reports it with its file and line, and only that case is lost)."""
    why = stream_without_stream(case.kind, case.api)
    if why:
        raise ValueError(
            f"kind {case.kind} on {case.api}: {why}; a `stream` option of an {case.api} request is a wire or "
            "e2e case, and a stream case names an api that streams"
        )
    return case


Case: Any = Annotated[
    functools.reduce(operator.or_, (kind.case_model for kind in KINDS.values())),
    Field(discriminator="kind"),
    AfterValidator(_has_streams),
]
CASE_ADAPTER: TypeAdapter[Any] = TypeAdapter(Case)


INPUT_FIELDS: dict[str, frozenset[str]] = {
    name: kind.case_model.input_fields() for name, kind in KINDS.items()
}
"""Kind → the top-level fields of its cases that hold their input: what a rule's ``when`` may read
(``wireconf.corpus.conditions``)."""


def open_corpus(root: Path) -> Corpus:
    """The corpus under ``root``, each case validated against the kinds' case models."""
    return Corpus(root, CASE_ADAPTER)


class CaseFile(BaseModel):
    """A YAML case file: ``cases`` plus ``x-*`` keys that hold anchors for reuse."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"patternProperties": {"^x-": {}}})

    cases: list[Case]


def case_file_json_schema() -> dict[str, Any]:
    """The JSON Schema that editors can use to validate case files (``wireconf schema``)."""
    schema = CaseFile.model_json_schema()
    schema["additionalProperties"] = False
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "wireconf case file"
    return schema
