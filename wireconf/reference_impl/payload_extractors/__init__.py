"""The payload extractors of seed 003 (extract): SchemaMap engine, built-in maps, registries.

``extract(request, response)`` receives bodies (extracted with the api's built-in schema) or ATOF
events ``{kind, category, data_schema, data}`` (resolved through the registries); docs/seeds.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from wireconf.reference_impl.payload_extractors import registry
from wireconf.reference_impl.payload_extractors.routing import API_SCHEMAS, route

registry.register_anthropic_messages_v1()
registry.register_gemini_generate_content_v1()


def extract(api: str, request: Any, response: Any) -> dict[str, Any]:
    return route(registry, api, request, response)


FUNCTIONS: dict[tuple[str, str], Callable[..., Any]] = {
    ("extract", api): functools.partial(extract, api) for api in API_SCHEMAS
}
