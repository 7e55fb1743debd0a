"""Error categories: what an error means in the spec's terms, so that a runtime in any language can say it.

A case that expects an error (``expect_error: {category: invalid-input}``) is about a concept of the spec
(the input cannot be sent, the model refused, the provider answered 404 ...), never about a Python class:
a JavaScript runtime cannot raise ``ValueError``, and its ``TypeError`` is not Python's. Each category
below names where the spec (``/work/shared/seeds``: §7 wire format, §8 processing) or the catalogue's
decisions raise it.

How an exception gets its categories (``categories_of``), first that applies:

1. *declared*: the runtime said it: an exec runtime's ``error.category`` (``null``: it declares none), or
   an adapter's ``categorised(exc, ...)`` / ``declared_categories({...})``. Exactly that category.
2. *mapped* from the exception's classes (``DEFAULT_MAPPING``, by class name along the MRO). The spec's
   pseudocode raises ``ValueError`` for invalid input, a refusal, an empty response and an error the
   response reports alike, so a ``ValueError`` stands for any of them: a Python runtime that follows the
   spec's text cannot say more, and keeps passing. The official SDKs' status errors carry their status.
3. otherwise *uncategorised*: an error the runtime did not mean as any of the spec's errors (a
   JavaScript ``DOMException`` from ``atob`` on a bad data URL, an ``IndexError``). It never matches a
   category: a case that expects one fails with ``wrong-error``, attributed to the rule that says raise.
   What an adapter saw its runtime do (``adapter_contract.RuntimeOutcome``: it sent no request, built
   one no SDK can send) is uncategorised so: its classes derive from none of those mapped.

Standard library only: both sides of the exec protocol use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from wireconf.core.errors import WireconfError

E = TypeVar("E", bound=BaseException)

CATEGORIES: dict[str, str] = {
    "invalid-input": "the prompt, agent or tool definitions cannot be turned into the api's request: an "
    "unknown role, api type, part kind or tool kind, a part the api cannot carry, a malformed data URL, "
    "tool-call arguments that are not JSON, an unparsable OpenAPI document (§7: 7/unknown-api-type-raises, "
    "7.1.2, 7.1.3, 7.1.4, 7.4, 7.5, 7.9.1, 7.9.2 of the catalogue; Python: ValueError, TypeError)",
    "resource-unavailable": "a resource the agent names cannot be read or started: a prompty tool's file, "
    "an MCP server (§7.1.3: 7.1.3/prompty-missing-file-raises, 7.1.3/mcp-server-failure-raises; "
    "Python: OSError)",
    "refusal": 'the model refused: §8.6 `raise ValueError("Model refused: " + delta.refusal)`, the '
    "Responses API's refusal (8.4/stream-refusal-raises), Anthropic's `refusal` stop reason "
    "(8.5/stream-refusal-raises)",
    "blocked": "the provider withheld the answer: a Gemini prompt block or a candidate finished by a "
    "content filter (8.8/blocked-finish-raises, 8.9/prompt-blocked-raises, 8.9/blocked-finish-raises)",
    "empty-response": 'the response holds nothing to return: §8.2 `raise ValueError("Empty embedding '
    'response")`, §8.3 `raise ValueError("Empty image response")`, a Gemini response without candidates '
    "(8.8/no-candidates-raises)",
    "provider-error": "a successful HTTP response (or a stream event) reports an error: §8.4 `if "
    "response.error: raise ValueError(response.error.message)`, a response.failed or error event "
    "(8.4/stream-failed-raises, 8.4/stream-error-event-raises, 8.5/stream-error-event-raises)",
    "provider-http-error": "the provider answered with an HTTP error status, which propagates with that "
    "status (8/http-error-raises; Python: the SDKs' APIStatusError, google.genai's APIError)",
}
"""Every category, with what it means and where the spec raises it."""

SPEC_VALUE_ERROR = frozenset({"invalid-input", "refusal", "blocked", "empty-response", "provider-error"})
"""What the spec's own ``raise ValueError(...)`` stands for (§7 decisions, §8.2, §8.3, §8.4, §8.6)."""

DEFAULT_MAPPING: tuple[tuple[str, frozenset[str]], ...] = (
    ("ValueError", SPEC_VALUE_ERROR),
    ("TypeError", frozenset({"invalid-input"})),
    ("OSError", frozenset({"resource-unavailable"})),
)
"""Python exception classes (by name, anywhere in the MRO) → the categories they stand for; the SDKs'
status errors are read apart (``_status_error``)."""

STATUS_ERRORS: dict[str, int] = {
    "BadRequestError": 400,
    "AuthenticationError": 401,
    "PermissionDeniedError": 403,
    "NotFoundError": 404,
    "ConflictError": 409,
    "UnprocessableEntityError": 422,
    "RateLimitError": 429,
}
"""The official SDKs' status error classes and their status, for an exception that crossed a process
by its class names alone (an exec runtime of protocol 1 or 2) and so lost its ``status_code``."""

STATUS_BASES = ("APIStatusError", "APIError")
"""The base classes the official SDKs name their HTTP errors after (OpenAI's and Anthropic's
``APIStatusError``, google-genai's ``APIError``): read by name, so that no provider is named here."""


@dataclass(frozen=True)
class Categorised:
    """The categories an exception stands for (empty: uncategorised) and the HTTP status it carries."""

    categories: frozenset[str]
    status: int | None = None
    declared: bool = False

    def describe(self) -> str:
        if not self.categories:
            return "uncategorised"
        names = "/".join(sorted(self.categories))
        return names + (f" (status {self.status})" if self.status is not None else "")


class UnknownCategory(WireconfError, ValueError):
    """An error category outside ``CATEGORIES`` (in a case, an adapter's declaration or a runtime's
    report); a ``ValueError`` too, so a pydantic validator reports it as the case's error."""


def check(category: str) -> str:
    """``category`` if it is one of ``CATEGORIES``; else ``UnknownCategory`` naming them."""
    if category not in CATEGORIES:
        raise UnknownCategory(f"unknown error category {category!r} (known: {', '.join(CATEGORIES)})")
    return category


def categorised(exc: E, category: str | None, status: int | None = None) -> E:
    """``exc`` declared to mean ``category`` (``None``: none of the spec's errors), with ``status``."""
    # an exception of any class carries the declaration as attributes of its own: no class declares them
    exc.wireconf_category = None if category is None else check(category)  # type: ignore[attr-defined]
    exc.wireconf_status = status  # type: ignore[attr-defined]  # likewise, the status with it
    return exc


@contextmanager
def declared_categories(mapping: Mapping[str, str]) -> Iterator[None]:
    """An adapter's own mapping: an exception raised inside whose class (by ``Name`` or ``module.Name``,
    anywhere in its MRO) is a key of ``mapping`` is declared to mean that category."""
    for category in mapping.values():
        check(category)
    try:
        yield
    except Exception as exc:
        names = _class_names(type(exc))
        found = next((mapping[name] for name in names if name in mapping), None)
        if found is not None and not hasattr(exc, "wireconf_category"):
            categorised(exc, found, _status(exc))
        raise


def _class_names(cls: type) -> list[str]:
    names: list[str] = []
    for base in cls.__mro__:
        names += [base.__name__, f"{base.__module__}.{base.__qualname__}"]
    return names


def _status(exc: BaseException) -> int | None:
    for attribute in ("status_code", "code", "status"):
        value = getattr(exc, attribute, None)
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
            return value
    names = [cls.__name__ for cls in type(exc).__mro__]
    return next((STATUS_ERRORS[name] for name in names if name in STATUS_ERRORS), None)


def _status_error(exc: BaseException) -> Categorised | None:
    """An SDK's status error: the provider's HTTP error with its status; a status below 400 (an error
    event in a 200 stream, as the Anthropic SDK raises it) is an error the response reports."""
    if not any(cls.__name__ in (*STATUS_BASES, *STATUS_ERRORS) for cls in type(exc).__mro__):
        return None
    status = _status(exc)
    if status is None:
        return None  # no HTTP response (openai.APIConnectionError is an APIError too)
    if status < 400:
        return Categorised(frozenset({"provider-error"}), status)
    return Categorised(frozenset({"provider-http-error"}), status)


def mapped(exc: BaseException) -> Categorised:
    """The categories ``exc``'s classes stand for (``DEFAULT_MAPPING``), without what it declares."""
    status_error = _status_error(exc)
    if status_error is not None:
        return status_error
    names = {cls.__name__ for cls in type(exc).__mro__}
    for name, categories in DEFAULT_MAPPING:
        if name in names:
            return Categorised(categories)
    return Categorised(frozenset())


def categories_of(exc: BaseException) -> Categorised:
    """What ``exc`` means in the spec's terms: declared, else mapped, else uncategorised."""
    if hasattr(exc, "wireconf_category"):
        category = getattr(exc, "wireconf_category", None)
        status = getattr(exc, "wireconf_status", None)
        return Categorised(frozenset({category}) if category else frozenset(), status, declared=True)
    return mapped(exc)


def reported(exc: BaseException) -> dict[str, Any]:
    """The ``category`` (and ``status``) fields of an exec error message for ``exc``: declared ones as
    declared (``category: null`` for a declared "none"), a single mapped one; nothing when its classes
    stand for several (a plain ValueError), which the harness then maps from the class names itself."""
    found = categories_of(exc)
    if found.declared and not found.categories:
        return {"category": None}
    if len(found.categories) != 1:
        return {}
    (category,) = found.categories
    return {"category": category, **({"status": found.status} if found.status is not None else {})}


def shown_name(exc: BaseException) -> str:
    """The name of ``exc``'s class as its runtime spells it: ``module.Name`` for a Python class
    (``builtins.ValueError``); for an exception from another process, the name that process sent
    (``wireconf_name``: a JavaScript ``SyntaxError``, ``ai.NoObjectGeneratedError``), never that of the
    Python class it stands on."""
    cls = type(exc)
    remote = cls.__dict__.get("wireconf_name")
    return str(remote) if remote else f"{cls.__module__}.{cls.__qualname__}"


def names(categories: Iterable[str]) -> str:
    return ", ".join(sorted(categories))
