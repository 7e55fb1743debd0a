"""A response handed to a processor as a plain mapping (the decoded JSON body, as a runtime that calls
the HTTP API itself or receives a provider dict has it) is read as the official SDK's object for that
body, so that it gives the same result as the SDK's object (project decision 8/plain-mapping-response).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeVar, cast

if TYPE_CHECKING:
    from pydantic import BaseModel

T = TypeVar("T", bound="BaseModel")  # the SDKs' types are pydantic models


def from_mapping(sdk_type: type[T], response: object) -> T:
    """``response`` as ``sdk_type`` when it is a plain mapping; anything else as it is.

    The SDK builds the object the way it builds one from the HTTP body: the OpenAI and Anthropic SDKs
    construct it without validation (nested objects included), the Gemini SDK validates its aliases
    (the camelCase wire names)."""
    if not isinstance(response, Mapping):
        return cast(T, response)  # the SDK's object, or one a runtime made to be read as it
    construct = getattr(sdk_type, "construct", None)
    if construct is not None and sdk_type.__module__.startswith(("openai.", "anthropic.")):
        return cast(T, construct(**response))
    return sdk_type.model_validate(dict(response))
