"""Error categories: an exception's categories are declared, else mapped from its classes, else none;
an expectation by category matches on the category (and status), whatever the class is called."""

from __future__ import annotations

import anthropic
import httpx
import openai
import pytest
from google.genai import errors as genai_errors
from pydantic import ValidationError

from wireconf.core.error_categories import (
    CATEGORIES,
    categories_of,
    categorised,
    declared_categories,
    reported,
)
from wireconf.corpus.model import ExpectedError
from wireconf.judging.verdict import exception_matches


def _status_error(module, cls_name: str, status: int) -> Exception:
    request = httpx.Request("POST", "https://api.example/v1/x")
    response = httpx.Response(status, request=request, json={"error": {"message": "m"}})
    return getattr(module, cls_name)("m", response=response, body=None)


def _expect(**fields) -> ExpectedError:
    return ExpectedError.model_validate(fields)


def test_a_value_error_stands_for_every_category_the_spec_raises_it_for():
    found = categories_of(ValueError("Model refused: no"))
    assert {"invalid-input", "refusal", "empty-response", "provider-error", "blocked"} <= found.categories
    assert "provider-http-error" not in found.categories
    assert categories_of(TypeError("x")).categories == {"invalid-input"}
    assert categories_of(FileNotFoundError("tool.prompty")).categories == {"resource-unavailable"}


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (_status_error(openai, "NotFoundError", 404), 404),
        (_status_error(anthropic, "BadRequestError", 400), 400),
        (_status_error(openai, "InternalServerError", 503), 503),
    ],
)
def test_the_sdks_status_errors_are_the_providers_http_error_with_its_status(error, status):
    found = categories_of(error)
    assert (found.categories, found.status) == ({"provider-http-error"}, status)
    assert exception_matches(error, _expect(category="provider-http-error", status=status))
    assert not exception_matches(error, _expect(category="provider-http-error", status=status + 1))


def test_google_genai_client_error_carries_its_code():
    error = genai_errors.ClientError(
        404, {"error": {"code": 404, "message": "not found", "status": "NOT_FOUND"}}
    )
    assert exception_matches(error, _expect(category="provider-http-error", status=404))


def test_a_status_error_below_400_is_an_error_the_response_reports():
    """The Anthropic SDK raises its APIStatusError for an error event of a 200 stream."""
    error = _status_error(anthropic, "APIStatusError", 200)
    assert categories_of(error).categories == {"provider-error"}


def test_uncategorised_errors_match_no_category_but_the_older_form_still_matches_classes():
    error = IndexError("list index out of range")
    assert categories_of(error).categories == frozenset()
    assert not exception_matches(error, _expect(category="empty-response"))
    assert exception_matches(error, _expect(type="LookupError"))


def test_a_declared_category_wins_over_the_classes():
    error = categorised(_status_error(openai, "BadRequestError", 400), "invalid-input")
    assert categories_of(error).categories == {"invalid-input"}
    none = categorised(TypeError("DOMException: Invalid character"), None)
    assert not exception_matches(none, _expect(category="invalid-input"))
    with pytest.raises(ValueError, match="unknown error category 'oops'"):
        categorised(ValueError("x"), "oops")


def test_an_adapter_declares_its_own_mapping_by_class_name():
    class BadRequestError(Exception):
        pass

    with pytest.raises(BadRequestError) as raised, declared_categories({"BadRequestError": "invalid-input"}):
        raise BadRequestError("no tools= given")
    assert categories_of(raised.value).declared and categories_of(raised.value).categories == {
        "invalid-input"
    }
    with pytest.raises(RuntimeError) as other, declared_categories({"BadRequestError": "invalid-input"}):
        raise RuntimeError("unrelated")
    assert not categories_of(other.value).declared


def test_what_the_python_helper_reports_is_one_category_or_nothing():
    assert reported(ValueError("x")) == {}  # several: the harness maps the class names itself
    assert reported(_status_error(openai, "NotFoundError", 404)) == {
        "category": "provider-http-error",
        "status": 404,
    }
    assert reported(categorised(RuntimeError("x"), None)) == {"category": None}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "exactly one of `category` or `type`"),
        ({"category": "refusal", "type": "ValueError"}, "exactly one of `category` or `type`"),
        ({"category": "nonsense"}, "unknown error category 'nonsense'"),
        ({"category": "refusal", "status": 404}, "status is only for category provider-http-error"),
    ],
)
def test_expect_error_gives_one_known_form(fields, message):
    with pytest.raises(ValidationError, match=message):
        ExpectedError.model_validate(fields)


def test_every_category_says_where_the_spec_raises_it():
    for name, text in CATEGORIES.items():
        assert any(mark in text for mark in ("§", "8/", "7.", "8.")), name


def test_an_sdk_error_without_an_http_response_is_no_http_error():
    error = openai.APIConnectionError(request=httpx.Request("POST", "https://api.example/v1/x"))
    assert categories_of(error).categories == frozenset()


def test_an_adapter_declares_categories_from_the_contract_module():
    """The module an adapter imports (``wireconf.adapter_contract``) offers the declarations, so that an
    adapter never imports a module of the harness's inside (``wireconf.core``), whose place may move."""
    import wireconf.adapter_contract as contract
    from wireconf.core import error_categories

    assert {"categorised", "declared_categories"} <= set(contract.__all__)
    assert contract.categorised is error_categories.categorised
    assert contract.declared_categories is error_categories.declared_categories
