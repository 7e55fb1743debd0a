"""``extract`` (seed 003, payload extractors): recorded request/response bodies → messages, text, tool calls.

The adapter's ``extract(api, request, response)`` gets plain JSON. By default these are the request and
response bodies as recorded, extracted with the built-in LLM extractor of the case's api (the api's
``data_schema``: docs/seeds.md) and the result is ``{input_messages, output_text, tool_calls}``.

A case that addresses the registries (``data_schema:``, including ``null``) or another extractor
(``extractor: tool | mark``) gets ATOF events instead of bare bodies: ``{kind, scope_category?,
category?, data_schema, data}``, with the payload in ``data``. Tool and mark events come as
``response`` (``request`` is None); the result is ``{tool_result}`` or ``{mark}``.

Extractors MUST be pure: the harness hands the adapter its own copies and fails the case when the
adapter changed them.
"""

from __future__ import annotations

import copy
import json
from typing import Any, Literal

from pydantic import Field, model_validator

from wireconf.cassettes.store import CassetteError
from wireconf.core.errors import CaseInputError, WireconfError
from wireconf.core.untyped import JSON, AdapterObject
from wireconf.core.yaml_source import to_plain
from wireconf.corpus.case import LoadedCase
from wireconf.corpus.model import CaseBase, Strict
from wireconf.judging.outcome import Outcome
from wireconf.kinds.base import HarnessContext
from wireconf.kinds.kind import AdapterMethod, Call, Kind

Extractor = Literal["llm", "tool", "mark"]


EXTRACT = AdapterMethod("extract", ("request", "response"))


class Payload(Strict):
    """A payload: the body recorded in a cassette interaction (request side for ``request``, response
    side for ``response``), or an inline ``body`` (any JSON, ``null`` included)."""

    cassette: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
    interaction: int = Field(default=0, ge=0)
    body: JSON = None

    @model_validator(mode="after")
    def _one_source(self) -> Payload:
        if (self.cassette is not None) == ("body" in self.model_fields_set):
            raise ValueError("a payload gives exactly one of `cassette` (with `interaction`) or `body`")
        return self


class DataSchema(Strict):
    name: str
    version: str


class ExtractCase(CaseBase):
    """Recorded payloads → what the extractor resolved for them returns."""

    kind: Literal["extract"]
    request: Payload | None = None
    response: Payload | None = None
    data_schema: DataSchema | None = Field(
        default=None,
        description="The producer-declared schema; absent: the api's built-in schema; null: none declared",
    )
    extractor: Extractor = Field(default="llm", description="Which protocol: llm, tool or mark")

    @model_validator(mode="after")
    def _payloads_fit_extractor(self) -> ExtractCase:
        if self.request is None and self.response is None:
            raise ValueError("give a `request` and/or a `response` payload")
        if self.extractor != "llm" and self.request is not None:
            raise ValueError(f"a {self.extractor} extractor reads one payload: give it as `response`")
        return self


class PayloadMutated(WireconfError):
    """The extractor changed the payload it was given (extractors MUST be pure)."""


CHECKED_AFTER = "(checked by the harness after extract() returned)"
"""What stands for the traceback of ``PayloadMutated``: the harness raised it, not the adapter."""


def _body(ctx: HarnessContext, payload: Payload, side: str, where: str) -> JSON:
    if payload.cassette is None:
        return payload.body
    try:
        interaction = ctx.cassettes.interaction(payload.cassette, payload.interaction)
    except CassetteError as exc:
        raise CaseInputError(str(exc)) from exc
    raw = getattr(interaction, side).body
    try:
        return json.loads(raw) if raw else None
    except ValueError as exc:
        raise CaseInputError(
            f"{where}: the {side} body of interaction {payload.interaction} of cassette "
            f"{payload.cassette} is not JSON: {exc}"
        ) from exc


def _event(extractor: str, start: bool, data_schema: JSON, data: JSON) -> dict[str, Any]:
    if extractor == "mark":
        return {"kind": "mark", "data_schema": data_schema, "data": data}
    return {
        "kind": "scope",
        "scope_category": "start" if start else "end",
        "category": extractor,
        "data_schema": data_schema,
        "data": data,
    }


def payloads(ctx: HarnessContext, case: LoadedCase[ExtractCase]) -> tuple[JSON, JSON]:
    """The ``request`` and ``response`` the adapter's ``extract`` gets for ``case``: bare bodies, or ATOF
    events around them (also what a reproduction of the case hands the runtime, ``wireconf.repro``)."""
    model = case.model
    request = None if model.request is None else _body(ctx, model.request, "request", "request")
    response = None if model.response is None else _body(ctx, model.response, "response", "response")
    if "data_schema" in model.model_fields_set or model.extractor != "llm":
        schema = to_plain(case.raw.get("data_schema"))
        if model.request is not None:
            request = _event(model.extractor, True, schema, request)
        if model.response is not None:
            response = _event(model.extractor, False, schema, response)
    return to_plain(request), to_plain(response)


def _prepare(ctx: HarnessContext, case: LoadedCase[ExtractCase]) -> Call[None]:
    request, response = payloads(ctx, case)

    def call(adapter: AdapterObject) -> Outcome[None]:
        given = (copy.deepcopy(request), copy.deepcopy(response))
        outcome = EXTRACT.invoke(adapter, case.api, *given)
        if outcome.raised is not None:
            return outcome
        for name, before, after in (("request", request, given[0]), ("response", response, given[1])):
            if after != before:
                mutated = PayloadMutated(
                    f"the extractor changed the {name} payload it was given (extractors MUST be pure "
                    "functions over their data, without side effects)"
                )
                return Outcome(raised=mutated, traceback=lambda: CHECKED_AFTER)
        return outcome

    return call


class ExtractKind(Kind[ExtractCase, None]):
    name = "extract"
    unparsed_inputs = True  # no SDK input
    case_model = ExtractCase
    noun = "extraction"
    method = EXTRACT

    def prepare(self, ctx: HarnessContext, case: LoadedCase[ExtractCase]) -> Call[None]:
        return _prepare(ctx, case)


KIND = ExtractKind()
