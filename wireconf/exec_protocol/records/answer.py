"""A call's answer: items (``yield``), then its ``result`` or its ``error``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from wireconf.core.error_categories import CATEGORIES
from wireconf.core.untyped import JSON
from wireconf.exec_protocol.records.base import CallId, Record
from wireconf.exec_protocol.records.names import STREAMING, YIELDING, CategoryOrNull, listed

NonEmpty = Annotated[str, Field(min_length=1)]

_CATEGORY = (
    "protocol 2, only after a hello that says `categories`: what the error means in the spec's terms, "
    "whatever its class is called (cases expect `expect_error: {category: ...}`). null: none of them (an "
    "error the runtime did not mean, e.g. a DOMException from atob): its class names are then not read as "
    "Python's, and it matches no category. Absent: the class names in `mro` are mapped as a Python "
    "exception's are (ValueError, TypeError, the SDKs' status errors). "
    + "; ".join(f"`{name}`: {text}" for name, text in CATEGORIES.items())
)


class ErrorPayload(Record):
    """An exception, as an `error` message (and a failing stream's `end`) carries it."""

    type: NonEmpty
    classes: list[NonEmpty] | None = Field(None, alias="mro")  # `mro`, a name a class already has
    message: str
    traceback: str | None = None
    category: CategoryOrNull = Field(None, description=_CATEGORY)
    status: Annotated[int, Field(ge=100, le=599)] | None = Field(
        None,
        description="with category `provider-http-error`: the HTTP status the provider answered (an e2e "
        "case expecting a 404 passes on the status, whatever the error's class is called)",
    )
    inexpressible: bool | None = Field(
        None,
        description="the adapter says the case's input has no form in its runtime (its users cannot write "
        "it: an image in a system prompt that is text only, a role it has no word for), and `message` why: "
        "the case is unsupported by this runtime, not judged (Python: "
        "`wireconf.adapter_contract.Inexpressible`; `@wireconf/exec`: `Inexpressible`)",
    )
    origin: Literal["adapter", "runtime", "input"] | None = Field(
        None,
        description="whose code raised the error: `adapter`, the adapter's own (a bug of the adapter, not "
        "the runtime's: the case is an error naming the adapter, no verdict), `runtime` (the default) the "
        "runtime's or what it calls (judged as the runtime's outcome); told from the stack by the runtime's "
        "side (wireconf.core.raise_site); `input`: its SDK could not parse a call's SDK argument (a "
        "recorded response, `inputs: recorded`), before any adapter code ran: the case's input, an error "
        "of the case, no verdict (in-process, the harness's SDK refuses it the same way)",
    )
    at: str | None = Field(
        None, description="with origin `adapter`: where in the adapter's code (module or file, line)"
    )


class Yield(Record):
    __doc__ = (
        f"runtime → harness: one item yielded by a streaming method ({listed(YIELDING + STREAMING)}), in "
        "order. `read` (protocol 3, `pipeline`): how many events of the streamed argument the runtime's "
        "SDK had read when the item was yielded, the `end` counted as one more (as a `next` answered by "
        "`end` was)."
    )

    type: Literal["yield"] = "yield"
    id: CallId
    item: JSON
    read: Annotated[int, Field(ge=0)] | None = None


class Result(Record):
    __doc__ = (
        f"runtime → harness: the call returned `value` (null for {listed(YIELDING)}, whose items were "
        f"yielded). `streamed` ({listed(STREAMING)}, protocol 2): the result was a stream whose items were "
        "the call's yields (a stream of no items is an empty list, not null)."
    )

    type: Literal["result"] = "result"
    id: CallId
    value: JSON = None
    streamed: bool | None = None


class Error(Record):
    """runtime → harness: the call raised. `mro` lists the exception's classes, most derived first, as
    module.Name (a bare Name, or builtins.Name, that is a Python built-in exception is that exception:
    ValueError)."""

    type: Literal["error"] = "error"
    id: CallId
    error: ErrorPayload
