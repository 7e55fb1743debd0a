"""LiteLLM's exceptions in the spec's terms: LiteLLM wraps every failure in its own classes (with a
status of its making), so the adapter declares the category from what its transport saw."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from wireconf.adapters.http_answer import REFUSED, Answer, Sent
from wireconf.adapters.litellm import _declare_category
from wireconf.core.error_categories import categories_of


def _litellm_class(name: str) -> type[Exception]:
    return type(name, (Exception,), {"__module__": "litellm.exceptions", "status_code": 500})


BadRequestError = _litellm_class("BadRequestError")
APIConnectionError = _litellm_class("APIConnectionError")
InternalServerError = _litellm_class("InternalServerError")


def _raised(cls: type[Exception], cause: BaseException | None = None) -> Exception:
    try:
        try:
            if cause is not None:
                raise cause
        finally:
            raise cls("litellm says no")
    except Exception as exc:
        return exc


def _sent(*methods: str) -> Sent:
    return Sent([SimpleNamespace(method=m) for m in methods])


@pytest.mark.parametrize(
    ("exc", "answer", "sent", "expected"),
    [
        # refused before any HTTP exchange: the input was invalid
        (_raised(BadRequestError), REFUSED, _sent(), {"invalid-input"}),
        (
            _raised(APIConnectionError, Exception("Invalid Message passed in")),
            REFUSED,
            _sent(),
            {"invalid-input"},
        ),
        # a KeyError of LiteLLM's own code, wrapped: no refusal
        (_raised(BadRequestError, KeyError("tool_call_id")), REFUSED, _sent(), set()),
        # after a download the harness answered with its capture error: not the provider's answer
        (_raised(BadRequestError), REFUSED, _sent("GET"), set()),
        # reading a recorded 200: APIConnectionError is a crash, any other class the error it reports
        (_raised(APIConnectionError, KeyError("usageMetadata")), Answer(200, [], b""), _sent("POST"), set()),
        (_raised(InternalServerError), Answer(200, [], b""), _sent("POST"), {"provider-error"}),
        (_raised(InternalServerError), Answer(503, [], b""), _sent("POST"), {"provider-http-error"}),
    ],
)
def test_litellm_errors_are_declared_from_what_the_transport_saw(exc, answer, sent, expected):
    _declare_category(exc, answer, sent)
    found = categories_of(exc)
    assert found.declared and found.categories == expected
    if expected == {"provider-http-error"}:
        assert found.status == answer.status


def _answered(*statuses: int) -> Sent:
    return Sent([SimpleNamespace(method="POST") for _ in statuses], list(statuses))


@pytest.mark.parametrize(
    ("exc", "sent", "expected", "status"),
    [
        # over the case's endpoint (no answer of the adapter's): the status the endpoint sent back
        (_raised(InternalServerError), _answered(200), {"provider-error"}, None),
        (_raised(InternalServerError), _answered(503), {"provider-http-error"}, 503),
        (_raised(APIConnectionError, KeyError("usageMetadata")), _answered(200), set(), None),
        # nothing sent to the endpoint: LiteLLM refused the input
        (_raised(BadRequestError), _answered(), {"invalid-input"}, None),
    ],
)
def test_litellm_errors_over_an_endpoint_are_declared_from_the_status_it_answered(
    exc, sent, expected, status
):
    _declare_category(exc, None, sent)
    found = categories_of(exc)
    assert found.declared and found.categories == expected
    if status is not None:
        assert found.status == status


def test_a_forwarded_exchange_leaves_the_status_to_the_exception():
    exc = _raised(InternalServerError)
    _declare_category(exc, None, _sent("POST"))
    assert not categories_of(exc).declared


def test_other_exceptions_are_left_to_the_default_mapping():
    exc = ValueError("the adapter's own")
    _declare_category(exc, REFUSED, _sent())
    assert not categories_of(exc).declared
