"""The kinds of case: one module each, holding the kind's case model and its driver.

A kind module has ``CaseModel`` (the pydantic model of its cases, with ``kind: Literal[...]``),
``NOUN`` (what its result is called in messages) and ``prepare(ctx, case) -> Call``: the inputs are
built (cassette → SDK object) outside the time limit, and the returned call is what runs under it.
A module whose ``CaseModel`` is still ``None`` is a kind that is not implemented yet.
"""

from __future__ import annotations

import functools
import operator
from types import ModuleType
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from harness.kinds import blocks, convert, e2e, extract, process, stream, trace, wire

_ALL: dict[str, ModuleType] = {
    "wire": wire,
    "process": process,
    "stream": stream,
    "blocks": blocks,
    "extract": extract,
    "convert": convert,
    "trace": trace,
    "e2e": e2e,
}
DRIVERS: dict[str, ModuleType] = {
    kind: module for kind, module in _ALL.items() if module.CaseModel is not None
}

Case: Any = Annotated[
    functools.reduce(operator.or_, (module.CaseModel for module in DRIVERS.values())),
    Field(discriminator="kind"),
]
CASE_ADAPTER: TypeAdapter[Any] = TypeAdapter(Case)


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
