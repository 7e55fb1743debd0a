"""LiteLLM's exceptions in the spec's terms: LiteLLM wraps every failure in its own classes (with a
status of its making), so the adapter declares the category from what its transport saw."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from wireconf.adapters.http_answer import Sent
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


def _answered(*statuses: int) -> Sent:
    return Sent([SimpleNamespace(method="POST") for _ in statuses], list(statuses))


@pytest.mark.parametrize(
    ("exc", "sent", "expected", "status"),
    [
        # nothing sent: LiteLLM refused the input
        (_raised(BadRequestError), _answered(), {"invalid-input"}, None),
        (
            _raised(APIConnectionError, Exception("Invalid Message passed in")),
            _answered(),
            {"invalid-input"},
            None,
        ),
        # a KeyError of LiteLLM's own code, wrapped: no refusal
        (_raised(BadRequestError, KeyError("tool_call_id")), _answered(), set(), None),
        # reading the endpoint's answer: APIConnectionError is a crash, any other class the error that
        # answer reports (below 400) or the HTTP error of its status
        (_raised(APIConnectionError, KeyError("usageMetadata")), _answered(200), set(), None),
        (_raised(InternalServerError), _answered(200), {"provider-error"}, None),
        (_raised(InternalServerError), _answered(503), {"provider-http-error"}, 503),
    ],
)
def test_litellm_errors_are_declared_from_what_the_transport_saw(exc, sent, expected, status):
    _declare_category(exc, sent)
    found = categories_of(exc)
    assert found.declared and found.categories == expected
    if status is not None:
        assert found.status == status


@pytest.mark.parametrize("sent", [_sent("POST"), _sent("GET")], ids=["forwarded", "download-only"])
def test_an_exchange_without_a_status_leaves_the_category_to_the_exception(sent):
    exc = _raised(InternalServerError)
    _declare_category(exc, sent)
    assert not categories_of(exc).declared


def test_other_exceptions_are_left_to_the_default_mapping():
    exc = ValueError("the adapter's own")
    _declare_category(exc, _sent())
    assert not categories_of(exc).declared
