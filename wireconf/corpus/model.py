"""The parts every case model shares: inputs in the spec's vocabulary, responses, expectations.

Each kind's own case model lives with its kind in ``wireconf/kinds/<kind>.py``; the union of them
(a case file's ``cases:``) is built in ``wireconf/kinds/registry.py``. Every model forbids unknown
fields, so a typo (``maxTokens``) is an error at its line rather than a silently ignored input. Inputs
keep the spec's canonical vocabulary (camelCase); adapters receive them as plain dicts, as written.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from wireconf.core.error_categories import CATEGORIES
from wireconf.core.error_categories import check as check_category
from wireconf.core.untyped import JSON
from wireconf.providers.registry import API_NAMES

if TYPE_CHECKING:
    Api = str  # the names are known only at run time (the provider registry): a str to the checker
else:
    Api = Literal[API_NAMES]

_ID_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=False)


# --- inputs: the spec's canonical vocabulary ------------------------------------------------------


class Part(Strict):
    """A ContentPart: ``text``, ``image``, ``audio``, ``file`` (other kinds are allowed, to test errors)."""

    kind: str
    value: JSON = None
    detail: str | None = None
    mediaType: str | None = None


class Message(Strict):
    role: str
    content: list[Part] = Field(default_factory=list)
    metadata: dict[str, Any] | None = None


class Items(Strict):
    """The ``items`` of an array Property: a Property whose name, if any, means nothing."""

    name: str | None = None
    kind: str
    description: str | None = None
    enumValues: list[JSON] | None = None
    items: Items | None = None
    properties: list[Property] | None = None


class Property(Strict):
    """A Property of ``inputs``, ``outputs`` or ``FunctionTool.parameters``."""

    name: str
    kind: str
    description: str | None = None
    required: bool | None = None
    enumValues: list[JSON] | None = None
    default: JSON = None
    example: JSON = None
    items: Items | None = None
    properties: list[Property] | None = None


class Binding(Strict):
    """A tool argument bound to an agent input: injected at call time, hidden from the LLM."""

    name: str
    input: str | None = None


class BindingTarget(Strict):
    """A binding in the named form: the argument's name is the key, this is what it is bound to."""

    input: str | None = None


Bindings = list[Binding] | dict[str, BindingTarget | str]
"""Both forms of the spec's model: a list of ``{name, input}``, or a mapping keyed by argument name
whose value is ``{input}`` or the input's name alone (``{unit: {input: preferred_unit}}``, ``{unit:
preferred_unit}``). Adapters receive the form the case writes."""


class Tool(Strict):
    """A tool of any kind; kind-specific fields are optional here and checked by the runtime."""

    kind: str
    name: str | None = None
    description: str | None = None
    parameters: list[Property] | None = None
    bindings: Bindings | None = None
    strict: bool | None = None
    path: str | None = None
    connection: dict[str, Any] | None = None
    serverName: str | None = None
    allowedTools: list[str] | None = None
    specification: JSON = None
    options: dict[str, Any] | None = None


class RegistryEntry(Strict):
    """An entry of a runtime's tool registry: the signature of the custom tool named ``name``."""

    name: str
    parameters: dict[str, Any] = Field(
        description="The JSON Schema of the function's parameters, as registered"
    )


class ModelOptions(Strict):
    """The spec's ModelOptions (Prompty's model: ``ModelOptions`` in its TypeScript and Python runtimes)."""

    temperature: float | None = None
    maxOutputTokens: int | None = None
    topP: float | None = None
    topK: int | None = None
    frequencyPenalty: float | None = None
    presencePenalty: float | None = None
    stopSequences: list[str] | None = None
    seed: int | None = None
    reasoningEffort: str | None = None
    allowMultipleToolCalls: bool | None = None
    additionalProperties: dict[str, Any] | None = None


class Model(Strict):
    id: str
    provider: str | None = None
    apiType: str | None = None
    options: ModelOptions | None = None
    connection: dict[str, Any] | None = None


class Agent(Strict):
    name: str | None = None
    description: str | None = None
    model: Model
    inputs: list[Property] | None = None
    outputs: list[Property] | None = None
    tools: list[Tool] | None = None
    metadata: dict[str, Any] | None = None


# --- provider responses -----------------------------------------------------------------------------


class CassetteRef(Strict):
    """A response recorded in a cassette: ``cassettes/<cassette>.yaml``, interaction ``interaction``."""

    cassette: str = Field(pattern=r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$")
    interaction: int = Field(default=0, ge=0)


class InlineResponse(Strict):
    """A response written in the case: a JSON ``body``, stream ``events`` (JSON objects) or raw ``sse``."""

    status: int = 200
    headers: dict[str, str] = Field(default_factory=dict)
    body: JSON = None
    events: list[JSON] | None = None
    sse: str | None = None

    @model_validator(mode="after")
    def _one_payload(self) -> InlineResponse:
        given = [name for name in ("body", "events", "sse") if name in self.model_fields_set]
        if len(given) != 1:
            raise ValueError("an inline response gives exactly one of body, events or sse")
        return self


Response = CassetteRef | InlineResponse


# --- expectations ------------------------------------------------------------------------------------


class ExpectedError(Strict):
    """The adapter must raise: an error of ``category`` (``wireconf.core.error_categories``: the spec's
    concept, in any language; ``status`` for ``provider-http-error``), or, the older form, an exception whose
    class (or a base class) is named ``type``. Give exactly one of ``category`` or ``type``.

    ``match`` is a regular expression searched in ``str(exception)``; for streams, ``yielded`` lists the
    items that must have been yielded before the exception.
    """

    category: str | None = Field(
        default=None,
        description="What the error means in the spec's terms: " + ", ".join(CATEGORIES),
        json_schema_extra={"enum": [*CATEGORIES, None]},
    )
    status: int | None = Field(
        default=None, ge=100, le=599, description="With category provider-http-error: the HTTP status"
    )
    type: str | None = Field(
        default=None,
        description="The older form: a Python exception class name (ValueError, openai.NotFoundError) the "
        "exception or a base class has; only for a rule about a Python class, not a concept",
    )
    match: str | None = None
    yielded: list[JSON] | None = None

    @model_validator(mode="after")
    def _valid_regex(self) -> ExpectedError:
        if (self.category is None) == (self.type is None):
            raise ValueError("expect_error gives exactly one of `category` or `type`")
        if self.category is not None:
            check_category(self.category)
        if self.status is not None and self.category != "provider-http-error":
            raise ValueError("expect_error.status is only for category provider-http-error")
        if self.match is not None:
            try:
                re.compile(self.match)
            except re.error as exc:
                raise ValueError(f"match is not a valid regular expression: {exc}") from exc
        return self

    @property
    def label(self) -> str:
        """The expectation as a failure names it: ``invalid-input``, ``provider-http-error 404``,
        ``ValueError``."""
        if self.category is None:
            return str(self.type)
        return self.category + (f" {self.status}" if self.status is not None else "")


class VectorSource(Strict):
    """Where an imported case comes from: one of Prompty's upstream conformance vectors
    (microsoft/prompty, ``schema/tsp-output/.typra-generated/vectors.json``)."""

    name: str = Field(description="The vector's name, unchanged")
    commit: str = Field(pattern=r"^[0-9a-f]{7,40}$", description="The upstream commit it was imported at")


class CaseBase(Strict):
    """What every case has; each kind's model (``wireconf/kinds/<kind>.py``) adds its inputs and narrows
    ``kind`` to its own name."""

    yields_items: ClassVar[bool] = False
    """Whether the kind's call yields items, so that ``expect_error.yielded`` means something."""
    not_input: ClassVar[frozenset[str]] = frozenset(
        {
            "kind",
            "id",
            "rules",
            "api",
            "description",
            "expect",
            "expect_error",
            "tolerance",
            "expect_keys",
            "vector",
        }
    )
    """The fields that are not the case's input: what it is, what it checks and what it expects. A
    kind adds the expectations of its own (``expect_request``); a rule's ``when`` reads only the rest."""

    @classmethod
    def input_fields(cls) -> frozenset[str]:
        """The top-level fields that hold the case's input (agent, messages, response, ...)."""
        return frozenset(cls.model_fields) - cls.not_input

    kind: str
    id: str = Field(pattern=_ID_PATTERN, description="Stable, readable, unique; starts with '<kind>.<api>.'")
    rules: list[str] = Field(min_length=1, description="Ids of the rules (cases/rules.yaml) this case checks")
    api: Api
    description: str | None = None
    expect: JSON = Field(default=None, description="The expected result, compared exactly")
    expect_error: ExpectedError | None = None
    tolerance: float | None = Field(
        default=None, ge=0, description="Absolute tolerance for floats; exact comparison when absent"
    )
    expect_keys: Literal["all", "listed"] = Field(
        default="all",
        description="all (the default): the result equals `expect` exactly. listed: only the keys that "
        "`expect` lists are compared, at every depth (a key it lists must be there; other keys are free): "
        "the comparison of Prompty's upstream vector runners, for the cases imported from them",
    )
    vector: VectorSource | None = Field(
        default=None, description="The upstream vector this case was imported from (wireconf import-vectors)"
    )

    @model_validator(mode="after")
    def _conventions(self) -> CaseBase:
        prefix = f"{self.kind}.{self.api}."
        if not self.id.startswith(prefix):
            raise ValueError(f"id {self.id!r} must start with {prefix!r}")
        has_expect = "expect" in self.model_fields_set
        if has_expect == (self.expect_error is not None):
            raise ValueError(
                "missing expectation: give exactly one of `expect` or `expect_error`"
                if not has_expect
                else "give only one of `expect` or `expect_error`, not both"
            )
        if self.expect_error is not None and self.expect_error.yielded is not None and not self.yields_items:
            raise ValueError(
                f"expect_error.yielded is only meaningful for a kind whose call yields items, not {self.kind}"
            )
        if self.expect_keys == "listed" and not has_expect:
            raise ValueError("expect_keys: listed compares the keys of `expect`; this case has none")
        return self
